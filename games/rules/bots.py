"""Computer players: strategies over the rules state (no Django, no global random).

A bot answers one question, `next_actions(state, seat)`: the actions it wants to apply now, in
order (possibly none). The platform (games/bots/turns.py) applies them one by one through the
same state-change functions as a person's moves; the duel (`python -m benchmarks duel`) applies
them straight to the state. Both ask again after anything changes: a bot's decision depends on
the state it is given, not on what it decided before. It is not a pure function of the state,
though: the strong bot thinks under wall-clock time limits (a slower machine finds less), and
remembers the solver's answers per process (`solve`), so asking again is cheap.

What is due, for every level:

- its turn to draft (no forced take due): a `Draft`, then its arrangement with the new tile,
  then `ConfirmDraft`; with a draft of its own pending: the arrangement and the confirm;
- while drafting, not its turn: the arrangement, if its tiles can make a better board than the
  one it has (after a forced take gave it a tile);
- the finishing phase, not finished: the final arrangement, any illegal tile returned, `Finish`.
  Whatever its level, the final arrangement is the best the solver finds for the tiles it owns
  within `finish_time` (a computer player never finishes with less than its tiles could make:
  the easy player's board, built a tile at a time, often has no closed structure at all).

Levels:

- `easy` is the greedy player of greedy.py: it drafts the tile whose best legal placement makes
  the best board now, and only ever adds tiles where they fit legally while the pool lasts. The
  platform's timeout pick (`sim.timeout_action`) is this same judgement.
- `strong` drafts by what the solver says each draw-column tile adds to the best score its
  tiles can make (`best(owned + tile) - best(owned)`, under a time limit), plus half of what the
  tile would add to the next player's best score (what taking it denies them), ties broken by
  the greedy player's preference; it keeps its board as the solver's best arrangement of the
  tiles it owns, and submits that at the end.
- `expert` drafts by the engine's search over all the drafts to come (engine.py: a tree search
  whose playouts judge each seat's final tiles by the solver's bound, calibrated against the
  solver's exact scores with more than two players), within budgets counted in work, not
  time: the same state, budget and seed give the same decision on any machine. It arranges
  like the strong bot but under a node budget, and submits the proved best board.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, Clear, ConfirmDraft, Draft, Place, Return
from .board import Board, Placed
from .engine import Budget, Position, search
from .greedy import arrange, best_placement, choose_draft
from .solver import BestResult, best_arrangement
from .state import DRAFTING, FINISHING, GameState, auto_finish_actions
from .tiles import TILE_PATHS, TILES, Colour

LEVELS = ("easy", "strong", "expert")


class Bot:
    """A computer player's strategy. Subclasses choose the draft and the board they want while
    the pool lasts; the final arrangement is the solver's best for every level."""

    level = ""
    finish_time: float = 3.0  # seconds for the final arrangement's search

    def choose_draft(self, state: GameState, seat: int) -> Draft:
        raise NotImplementedError

    def arrangement_actions(self, state: GameState, seat: int) -> list[Action]:
        """Return the arranging actions that turn the seat's board into the one it wants."""
        raise NotImplementedError

    def finish_actions(self, state: GameState, seat: int) -> list[Action]:
        """Return the final arrangement (the best the solver finds for the seat's tiles), the
        returns of any illegal tile, and `Finish`."""
        actions = towards_best(state, seat, self.finish_time, reuse=False)
        after = apply_all(state, seat, actions)
        return actions + auto_finish_actions(after, seat)

    def next_actions(self, state: GameState, seat: int) -> list[Action]:
        """Return everything this bot wants to do now, in order (see the module docstring)."""
        if not state.can_arrange(seat):
            return []
        if state.phase == FINISHING:
            return self.finish_actions(state, seat)
        if state.phase != DRAFTING:
            return []
        if state.current != seat:
            return self.arrangement_actions(state, seat) if state.trays[seat] else []
        if state.forced_action() is not None:
            return []  # the server takes the column's last tile
        actions: list[Action] = []
        if state.pending is None:
            draft = self.choose_draft(state, seat)
            actions.append(draft)
            state = state.apply(draft, seat)
        actions += self.arrangement_actions(state, seat)
        return [*actions, ConfirmDraft()]


class EasyBot(Bot):
    """The greedy player (greedy.py) while the pool lasts."""

    level = "easy"

    def __init__(self, finish_time: float = 3.0):
        self.finish_time = finish_time

    def choose_draft(self, state: GameState, seat: int) -> Draft:
        return choose_draft(state, seat)

    def arrangement_actions(self, state: GameState, seat: int) -> list[Action]:
        events: list = []
        arrange(state, seat, events)
        return [action for _, action in events]


@dataclass
class StrongBot(Bot):
    """Drafts and arranges with the best-chip solver, each decision under a time limit.

    `draft_time`: seconds for one draft decision (shared by its searches); `arrange_time`: for
    the arrangement during drafting; `finish_time`: for the final arrangement; `deny`: the weight
    of what a tile would add to the next player's best score.
    """

    draft_time: float = 1.0
    arrange_time: float = 1.0
    finish_time: float = 3.0
    deny: float = 0.5
    level = "strong"

    def choose_draft(self, state: GameState, seat: int) -> Draft:
        start = time.perf_counter()
        candidates = state.draw_tiles()
        groups: dict[tuple, list[int]] = {}
        for tile in candidates:
            groups.setdefault((TILES[tile].kind, TILES[tile].colour), []).append(tile)
        representatives = [tiles[0] for tiles in groups.values()]
        opponent = (seat + 1) % state.players
        # The next player drafts from this column too only if it still holds 2 tiles after us.
        denying = self.deny > 0 and len(candidates) >= 3 and opponent != seat
        searches = (len(representatives) + 1) * (2 if denying else 1)

        def share() -> float:
            left = self.draft_time - (time.perf_counter() - start)
            return max(0.005, left / max(1, searches))

        own = _values(state, seat, representatives, share)
        searches -= len(representatives) + 1
        denied = _values(state, opponent, representatives, share) if denying else {}
        best_tile, best_key = None, None
        for tile in representatives:
            found = best_placement(state.boards[seat], [tile])
            greedy = (1, *found[0]) if found else (0, TILES[tile].value, 0, 0)
            worth = own[tile] + self.deny * denied.get(tile, 0)
            key = (worth, greedy, TILES[tile].value)
            if best_key is None or key > best_key:
                best_tile, best_key = tile, key
        if best_tile is None:
            raise ValueError("there is no tile to draft")
        return Draft(best_tile)

    def arrangement_actions(self, state: GameState, seat: int) -> list[Action]:
        # While drafting, the search its draft decision made for these tiles will do.
        if state.phase == FINISHING:
            return towards_best(state, seat, self.finish_time, reuse=False)
        return towards_best(state, seat, self.arrange_time, reuse=True)


@dataclass
class ExpertBot(Bot):
    """Drafts by the engine's search over the drafts to come (engine.py); keeps its board as
    the solver's best arrangement found within a budget of search nodes; submits the proved
    best board at the end.

    Every budget counts work, not time, so its decisions depend only on the state, its budgets
    and `seed`, on any machine however busy: `iterations`, `samples`, `calibrate` and
    `solver_nodes` are the search's (engine.Budget); `samples` None calibrates only with more
    than two players (with two, each ends with 25 tiles, where the bound is close enough that
    calibrating did not win more games: docs/engine.md); `arrange_nodes` bounds the solver's
    search for the board kept while drafting; `finish_nodes` the final one (None: to the proof).
    `time_cap` (seconds of CPU per search) is a safety net that the budgets should never reach.
    """

    iterations: int = 3000
    samples: int | None = None
    calibrate: int = 3
    solver_nodes: int | None = 10_000
    seed: int = 0
    arrange_nodes: int = 5000
    finish_nodes: int | None = None
    time_cap: float = 10.0
    finish_time: float = 3.0  # the final arrangement's, as every level's (Bot.finish_actions)
    options: dict = field(default_factory=dict)
    level = "expert"

    def budget(self, players: int) -> Budget:
        """The search's budget at a table of `players`."""
        samples = self.samples if self.samples is not None else (0 if players == 2 else 2)
        return Budget(self.iterations, samples, self.calibrate, self.solver_nodes, self.time_cap)

    def choose_draft(self, state: GameState, seat: int) -> Draft:
        budget = self.budget(state.players)
        result = search(Position.of(state), budget, seed=self.seed, **self.options)
        return Draft(result.best.tile)

    def arrangement_actions(self, state: GameState, seat: int) -> list[Action]:
        nodes = self.finish_nodes if state.phase == FINISHING else self.arrange_nodes
        board = state.boards[seat]
        target = solve_nodes(board.colours, owned_tiles(state, seat), nodes)
        if target.score <= state.score(seat).score and not _illegal(board):
            return []  # what it has is as good as what it found
        return actions_to(board, state.trays[seat], target.board)


# --- helpers -----------------------------------------------------------------------------------


def owned_tiles(state: GameState, seat: int) -> tuple[int, ...]:
    """Return every tile the seat owns, board and tray, in a fixed order."""
    return tuple(sorted((*state.trays[seat], *state.boards[seat].tiles())))


_CACHE: OrderedDict[tuple, tuple[BestResult, float]] = OrderedDict()
_CACHE_SIZE = 2048


def solve(
    colours: Sequence[Colour],
    tiles: Iterable[int],
    time_limit: float | None,
    *,
    reuse: bool = False,
) -> BestResult:
    """Return `best_arrangement(colours, tiles)` under `time_limit`, remembering the answers
    (a bot asks again about the same tiles on each call: drafts, then arranging). With `reuse`,
    any answer already known for these tiles will do, however long its search was."""
    key = (tuple(colours), tuple(sorted(tiles)))
    cached = _CACHE.get(key)
    if cached is not None:
        result, limit = cached
        if reuse or result.optimal or (time_limit is not None and limit >= time_limit):
            _CACHE.move_to_end(key)
            return result
    start_from = cached[0] if cached is not None else None
    result = best_arrangement(colours, key[1], time_limit=time_limit, start_from=start_from)
    if start_from is not None and start_from.score > result.score:
        result = start_from
    _CACHE[key] = (result, time_limit if time_limit is not None else float("inf"))
    _CACHE.move_to_end(key)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


_NODES_CACHE: OrderedDict[tuple, BestResult] = OrderedDict()


def solve_nodes(
    colours: Sequence[Colour | str], tiles: Iterable[int], max_nodes: int | None
) -> BestResult:
    """Return `best_arrangement(colours, tiles, max_nodes=max_nodes)`, remembered: the answer
    depends only on the question (no clock), so a remembered one is as good as a new one."""
    key = (tuple(colours), tuple(sorted(tiles)), max_nodes)
    found = _NODES_CACHE.get(key)
    if found is None:
        found = best_arrangement(colours, key[1], max_nodes=max_nodes)
        _NODES_CACHE[key] = found
        while len(_NODES_CACHE) > _CACHE_SIZE:
            _NODES_CACHE.popitem(last=False)
    _NODES_CACHE.move_to_end(key)
    return found


def towards_best(state: GameState, seat: int, time_limit: float, *, reuse: bool) -> list[Action]:
    """Return the actions that turn the seat's board into the best arrangement the solver finds
    for the tiles it owns within `time_limit` (none if what it has is as good, and legal)."""
    board = state.boards[seat]
    target = solve(board.colours, owned_tiles(state, seat), time_limit, reuse=reuse)
    if target.score <= state.score(seat).score and not _illegal(board):
        return []  # what it has is as good as what it found
    return actions_to(board, state.trays[seat], target.board)


def _values(
    state: GameState, seat: int, tiles: list[int], share: Callable[[], float | None]
) -> dict[int, int]:
    """Return what each tile would add to the best score of the seat's tiles (at least -2)."""
    colours = state.boards[seat].colours
    owned = owned_tiles(state, seat)
    base = solve(colours, owned, share())
    return {tile: solve(colours, (*owned, tile), share()).score - base.score for tile in tiles}


def _illegal(board: Board) -> bool:
    from .analysis import illegal_mask

    return bool(illegal_mask(board))


def _occupied(board: Board, space: int) -> Placed:
    cell = board.cells[space]
    if cell is None:
        raise ValueError(f"space {space} is empty")
    return cell


def _look(board: Board, space: int) -> tuple | None:
    cell = board.cells[space]
    if cell is None:
        return None
    tile = TILES[cell.tile]
    return (tile.kind, tile.colour, TILE_PATHS[cell.tile][cell.rotation])


def actions_to(board: Board, tray: tuple[int, ...], target: Board) -> list[Action]:
    """Return the fewest simple actions (returns then places, or a clear then places) that turn
    `board` (with `tray`) into a board that looks like `target`; equal tiles are interchangeable.
    """
    wrong = [
        s for s in range(25) if board.cells[s] is not None and _look(board, s) != _look(target, s)
    ]
    missing = [
        s for s in range(25) if target.cells[s] is not None and _look(board, s) != _look(target, s)
    ]
    placed = [s for s in range(25) if board.cells[s] is not None]
    if not wrong and not missing:
        return []
    to_place = [s for s in range(25) if target.cells[s] is not None]
    if placed and 1 + len(to_place) < len(wrong) + len(missing):
        actions: list[Action] = [Clear()]
        free = list(tray) + [_occupied(board, s).tile for s in placed]
        spaces = to_place
    else:
        actions = [Return(s) for s in wrong]
        free = list(tray) + [_occupied(board, s).tile for s in wrong]
        spaces = missing
    for space in spaces:
        cell = _occupied(target, space)
        want = (TILES[cell.tile].kind, TILES[cell.tile].colour)
        tile = next(t for t in free if (TILES[t].kind, TILES[t].colour) == want)
        free.remove(tile)
        actions.append(Place(tile, space, cell.rotation))
    return actions


def apply_all(state: GameState, seat: int, actions: list[Action]) -> GameState:
    for action in actions:
        state = state.apply(action, seat)
    return state


def make_bot(level: str, **options: Any) -> Bot:
    """Return a bot of this level ("easy", "strong" or "expert"); options go to the strong or
    the expert bot, and the easy bot takes its `finish_time`."""
    if level == "easy":
        return EasyBot(**{k: v for k, v in options.items() if k == "finish_time"})
    if level == "strong":
        return StrongBot(**options)
    if level == "expert":
        return ExpertBot(**options)
    raise ValueError(f"unknown bot level {level!r}")


__all__ = [
    "LEVELS",
    "Bot",
    "EasyBot",
    "ExpertBot",
    "StrongBot",
    "actions_to",
    "apply_all",
    "make_bot",
    "owned_tiles",
    "solve",
    "solve_nodes",
    "towards_best",
]
