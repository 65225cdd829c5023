"""The greedy player: the easy computer player, and the server's pick when a turn times out.

The greedy player only ever places tiles where they are legal right now (so its board never holds
an illegal tile: a legal placement cannot make a neighbour illegal, nor break a closed
structure). It picks the placement that makes the best board by this key, highest first:

    (chip value + 2 x chip tiles, -open path ends, connections the new tile joins)

and keeps placing while any tray tile has a legal spot. To draft, it takes the draw-column tile
whose best placement makes the best board (tiles without a legal spot last); ties go to the
topmost tile. When a player's time runs out the platform plays `timeout_action` for them.
"""

from __future__ import annotations

from .actions import Action, ConfirmDraft, Draft, Finish, Place
from .analysis import find_chip, legal_spots, open_ends
from .board import Board, Placed
from .state import DRAFTING, GameState
from .tiles import TILES

Key = tuple[int, int, int]


def board_key(board: Board, joins: int = 0) -> Key:
    _, tiles, value = find_chip(board.occ, board.n, board.e, board.s, board.w)
    return (value + 2 * tiles, -open_ends(board), joins)


def best_placement(board: Board, tiles: list[int]) -> tuple[Key, Place] | None:
    """Return the best legal placement of one of `tiles` on `board` with its key, or None."""
    best: tuple[Key, Place] | None = None
    seen = set()
    for tile in tiles:
        kind_colour = (TILES[tile].kind, TILES[tile].colour)
        if kind_colour in seen:  # identical tiles place identically
            continue
        seen.add(kind_colour)
        for space, rotation in legal_spots(board, tile):
            new = board.with_cells({space: Placed(tile, rotation)})
            joins = _joins(board, space)
            key = board_key(new, joins)
            if best is None or key > best[0]:
                best = (key, Place(tile, space, rotation))
    return best


def _joins(board: Board, space: int) -> int:
    """Return how many neighbours of `space` hold a path toward it (met by a legal placement)."""
    r, c = divmod(space, 5)
    count = 0
    if r > 0 and board.s >> (space - 5) & 1:
        count += 1
    if r < 4 and board.n >> (space + 5) & 1:
        count += 1
    if c > 0 and board.e >> (space - 1) & 1:
        count += 1
    if c < 4 and board.w >> (space + 1) & 1:
        count += 1
    return count


def arrange(state: GameState, seat: int, events: list | None = None) -> GameState:
    """Return the state after `seat` greedily places tray tiles while any fits legally."""
    while state.can_arrange(seat) and state.trays[seat]:
        found = best_placement(state.boards[seat], list(state.trays[seat]))
        if found is None:
            break
        state = _do(state, found[1], seat, events)
    return state


def _do(state: GameState, action: Action, seat: int, events: list | None) -> GameState:
    state = state.apply(action, seat)
    if events is not None:
        events.append((seat, action))
    return state


def next_action(state: GameState) -> tuple[int, Action] | None:
    """Return (seat, action): what a table of greedy players does next, or None when nothing is
    left. Every player arranges greedily after each draft; the player to draft confirms a
    pending draft or drafts; in the finishing phase each finishes. A forced take is the
    server's, not a player's: with one due, the draft returned is not legal."""
    for seat in range(state.players):
        if state.can_arrange(seat) and state.trays[seat]:
            found = best_placement(state.boards[seat], list(state.trays[seat]))
            if found is not None:
                return seat, found[1]
    if state.phase == DRAFTING:
        drafter = state.current
        assert drafter is not None  # while drafting, someone is to draft
        if state.pending is not None:
            return drafter, ConfirmDraft()
        return drafter, choose_draft(state, drafter)
    for seat in range(state.players):
        if not state.finished[seat]:
            return seat, Finish()
    return None


def choose_draft(state: GameState, seat: int) -> Draft:
    """Return the greedy player's draft from the draw column (the state must allow a draft)."""
    board = state.boards[seat]
    best_tile, best_key = None, None
    for tile in state.draw_tiles():
        found = best_placement(board, [tile])
        key = (1, *found[0]) if found else (0, TILES[tile].value, 0, 0)
        if best_key is None or key > best_key:
            best_tile, best_key = tile, key
    if best_tile is None:
        raise ValueError("there is no tile to draft")
    return Draft(best_tile)


def timeout_action(state: GameState, seat: int) -> Action | None:
    """Return what the server does for a seat whose turn time ran out, or None if nothing is due:
    the forced take, confirming a pending draft, or a sensible draft."""
    if state.phase != DRAFTING or seat != state.current:
        return None
    forced = state.forced_action()
    if forced is not None:
        return forced
    if state.pending is not None:
        return ConfirmDraft()
    return choose_draft(state, seat)


__all__ = [
    "arrange",
    "best_placement",
    "board_key",
    "choose_draft",
    "timeout_action",
]
