"""Puzzles cut from finished games, and their checker.

Two kinds (docs/engine.md, "Puzzles", says the same):

**Arrangement puzzles** (`arrangement_puzzle`): a board's colours and the tiles a player ended
with, where the player's final score was at least `min_gap` below the solver's proved best. Kept
only when interesting:

- *not trivial*: the greedy player (greedy.py, the easy computer player's arranging: legal
  placements, best first) does not reach the best score with these tiles;
- *unique or near-unique*: for each space of the best chip the solver is asked for the best
  board that leaves that space empty; a space is *essential* when that scores less. The puzzle
  is kept when at most `max_avoidable` (2) of the chip's spaces are not essential: every best
  board then covers the same spaces but at most two (any best board solves the puzzle).
  `runner_up` is the best score of a board that leaves some space of the chip empty (equal to
  the best when a space can be avoided).

Themes, where they can be said (`themes`): "loop" (the best chip holds a loop of at least 8
tiles: its 2-core, what is left after taking off every tile joined to one other only, repeatedly,
covers 8 spaces or more), "centre_cross" (a cross on the centre space), "crosses" (two crosses or
more in the chip), "leave_out" (the best board leaves at least 2 of the tiles out), "full_board"
(the chip covers all 25 spaces), "every_tile" (the best board uses every tile).

**Drafting puzzles** (`drafting_puzzles`): positions of a reviewed game (review.py) where one
tile of the draw column is clearly best by the engine: its value beats the second best choice's
by at least `min_margin` points (with two players the expected margin, else the expected
score), and the greedy player would not draft a tile of that kind and colour (not trivial).

A puzzle is plain data (`to_json`, `from_json`); `check_arrangement` and `check_draft` give the
verdict on an answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .analysis import can_finish
from .analysis import score as score_board
from .board import Board, Placed
from .deal import STANDARD
from .engine import Position
from .greedy import best_placement, choose_draft
from .replay import Event
from .review import GameReview, chosen_drafts
from .solver import best_arrangement
from .state import GameState
from .tiles import TILE_COUNT, TILES, Colour, Kind

#: Default thresholds.
MIN_GAP = 4
MAX_AVOIDABLE = 2
MIN_MARGIN = 4.0
LOOP_SIZE = 8


@dataclass
class ArrangementPuzzle:
    """Arrange `tiles` on a board of `colours` (25 names, row by row) for the best score.

    `best_score` is proved; `best_cells` one best board (`Board.cells_to_json`); `played_score`
    what the player made of these tiles in the game; `greedy_score` the greedy player's;
    `chip_spaces` and `essential` the best chip's spaces and how many of them every best board
    covers (`avoidable`: the others, which some best board leaves empty); `runner_up` the best
    score of a board that leaves one of the chip's spaces empty."""

    id: str
    colours: list[str]
    tiles: list[int]
    best_score: int
    best_cells: list
    played_score: int
    greedy_score: int
    chip_spaces: int
    essential: int
    runner_up: int
    themes: list[str]
    avoidable: list[int] = field(default_factory=list)
    source: dict = field(default_factory=dict)
    kind: str = "arrangement"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ArrangementPuzzle:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


@dataclass
class DraftingPuzzle:
    """Choose the tile to draft: the position (`columns` of the pool left to right, each seat's
    `holdings` and board `colours`, the `seat` to draft), the answer (`answer`: the engine's
    choice; any tile of its kind and colour is right), every choice's value (`choices`: tile and
    value, best first, in the puzzle's `measure`), the `margin` of the answer over the second
    best, and what was `played`."""

    id: str
    players: int
    seat: int
    columns: list[list[int]]
    holdings: list[list[int]]
    colours: list[list[str]]
    answer: int
    choices: list[dict]
    margin: float
    measure: str
    played: int
    source: dict = field(default_factory=dict)
    kind: str = "drafting"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> DraftingPuzzle:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _puzzle_id(kind: str, payload: object) -> str:
    text = json.dumps([kind, payload], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# --- arrangement puzzles ----------------------------------------------------------------------


def greedy_score(colours: Sequence[Colour], tiles: Iterable[int]) -> int:
    """The score of the greedy player's arrangement of these tiles from an empty board (its
    legal placements, best first, while one fits: greedy.py)."""
    board = Board(tuple(colours))
    tray = list(tiles)
    while tray:
        found = best_placement(board, tray)
        if found is None:
            break
        place = found[1]
        board = board.with_cells({place.space: Placed(place.tile_id, place.rotation)})
        tray.remove(place.tile_id)
    return score_board(board, len(tray)).score


def arrangement_puzzle(
    colours: Sequence[Colour | str],
    tiles: Iterable[int],
    played_score: int,
    *,
    min_gap: int = MIN_GAP,
    max_avoidable: int = MAX_AVOIDABLE,
    source: dict | None = None,
) -> ArrangementPuzzle | None:
    """The arrangement puzzle of these tiles on this board, or None when it is not one worth
    asking (see the module docstring)."""
    spaces = tuple(Colour(c) for c in colours)
    tiles = tuple(sorted(tiles))
    best = best_arrangement(spaces, tiles)
    if best.score - played_score < min_gap:
        return None
    greedy = greedy_score(spaces, tiles)
    if greedy >= best.score:
        return None
    chip = [space for space, cell in enumerate(best.board.cells) if cell is not None]
    avoidable = []
    runner_up = None
    for space in chip:
        without = best_arrangement(spaces, tiles, blocked=[space]).score
        runner_up = without if runner_up is None else max(runner_up, without)
        if without >= best.score:
            avoidable.append(space)
            if len(avoidable) > max_avoidable:
                return None
    return ArrangementPuzzle(
        id=_puzzle_id("arrangement", [[c.value for c in spaces], list(tiles)]),
        colours=[c.value for c in spaces],
        tiles=list(tiles),
        best_score=best.score,
        best_cells=best.board.cells_to_json(),
        played_score=played_score,
        greedy_score=greedy,
        chip_spaces=len(chip),
        essential=len(chip) - len(avoidable),
        runner_up=best.score if runner_up is None else runner_up,
        themes=themes(best.board, len(best.tray)),
        avoidable=avoidable,
        source=dict(source or {}),
    )


def arrangement_puzzles(state: GameState, **options: Any) -> list[ArrangementPuzzle]:
    """The arrangement puzzles of a finished game's final boards, one per seat at most."""
    found = []
    for seat in range(state.players):
        tiles = [*state.trays[seat], *state.boards[seat].tiles()]
        puzzle = arrangement_puzzle(
            state.boards[seat].colours,
            tiles,
            state.score(seat).score,
            source={"players": state.players, "seed": state.seed, "seat": seat},
            **options,
        )
        if puzzle is not None:
            found.append(puzzle)
    return found


def themes(board: Board, left_out: int) -> list[str]:
    """The themes of a best board (see the module docstring)."""
    found = []
    if len(_two_core(board)) >= LOOP_SIZE:
        found.append("loop")
    crosses = [s for s, cell in board.placed() if TILES[cell.tile].kind == Kind.CROSS]
    if 12 in crosses:
        found.append("centre_cross")
    if len(crosses) >= 2:
        found.append("crosses")
    if left_out >= 2:
        found.append("leave_out")
    if board.tile_count == 25:
        found.append("full_board")
    if left_out == 0:
        found.append("every_tile")
    return found


def _two_core(board: Board) -> set[int]:
    """The spaces left after taking off, again and again, every tile joined to at most one."""
    links: dict[int, set[int]] = {space: set() for space, _ in board.placed()}
    for space, cell in board.placed():
        r, c = divmod(space, 5)
        if c < 4 and cell.paths & 2 and space + 1 in links:
            links[space].add(space + 1)
            links[space + 1].add(space)
        if r < 4 and cell.paths & 4 and space + 5 in links:
            links[space].add(space + 5)
            links[space + 5].add(space)
    changed = True
    while changed:
        changed = False
        for space in [s for s, near in links.items() if len(near) <= 1]:
            for other in links.pop(space):
                links[other].discard(space)
            changed = True
    return set(links)


# --- drafting puzzles -------------------------------------------------------------------------


def drafting_puzzles(
    review: GameReview,
    players: int,
    seed: int,
    events: Iterable[Event],
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
    min_margin: float = MIN_MARGIN,
) -> list[DraftingPuzzle]:
    """The drafting puzzles of a reviewed game (see the module docstring)."""
    drafts, _ = chosen_drafts(
        players, seed, events, first_seat, strict_finish=strict_finish, layout=layout
    )
    by_step = {d.step: d for d in drafts}
    found = []
    for draft in review.drafts:
        if len(draft.choices) < 2:
            continue
        margin = draft.choices[0].value - draft.choices[1].value
        if margin < min_margin:
            continue
        chosen = by_step[draft.step]
        answer = draft.choices[0].tile
        greedy = choose_draft(chosen.before, chosen.seat).tile_id
        if _same_kind(greedy, answer):
            continue
        position = Position.of(chosen.before)
        holdings = [
            sorted([*chosen.before.trays[s], *chosen.before.boards[s].tiles()])
            for s in range(players)
        ]
        payload = [[list(c) for c in position.columns], holdings, position.seat]
        found.append(
            DraftingPuzzle(
                id=_puzzle_id("drafting", [players, seed, payload]),
                players=players,
                seat=position.seat,
                columns=[list(column) for column in position.columns],
                holdings=holdings,
                colours=[[c.value for c in colours] for colours in position.colours],
                answer=answer,
                choices=[{"tile": c.tile, "value": round(c.value, 2)} for c in draft.choices],
                margin=round(margin, 2),
                measure=review.measure,
                played=draft.taken,
                source={
                    "players": players,
                    "seed": seed,
                    "seat": chosen.seat,
                    "step": draft.step,
                    "number": draft.number,
                },
            )
        )
    return found


def _same_kind(a: int, b: int) -> bool:
    return (TILES[a].kind, TILES[a].colour) == (TILES[b].kind, TILES[b].colour)


# --- the checker ------------------------------------------------------------------------------


@dataclass
class Verdict:
    """The verdict on an answer: `solved`, the answer's `score` (arrangement: its score; draft:
    the engine's value of the tile) against the `best`, and `error` (a code) when the answer
    is not a valid one (then not solved)."""

    solved: bool
    score: float | None
    best: float
    error: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


def check_arrangement(puzzle: ArrangementPuzzle, placements: Iterable[dict]) -> Verdict:
    """The verdict on a board: `placements` are `{"space", "tile", "rotation"}` for each placed
    tile (tiles of the puzzle, each once; the others stay in the tray). Solved when the board
    can be finished (no illegal tile) and scores the best score."""
    colours = tuple(Colour(c) for c in puzzle.colours)
    cells: list[Placed | None] = [None] * 25
    used: set[int] = set()
    try:
        for placement in placements:
            space, tile = placement["space"], placement["tile"]
            rotation = placement.get("rotation", 0)
            if not all(
                isinstance(v, int) and not isinstance(v, bool) for v in (space, tile, rotation)
            ):
                return Verdict(False, None, puzzle.best_score, "bad_placement")
            if not (0 <= space < 25 and 0 <= rotation < 4 and 0 <= tile < TILE_COUNT):
                return Verdict(False, None, puzzle.best_score, "bad_placement")
            if tile not in puzzle.tiles or tile in used:
                return Verdict(False, None, puzzle.best_score, "tile_not_in_puzzle")
            if cells[space] is not None:
                return Verdict(False, None, puzzle.best_score, "space_occupied")
            cells[space] = Placed(tile, rotation)
            used.add(tile)
    except (KeyError, TypeError, AttributeError):
        return Verdict(False, None, puzzle.best_score, "bad_placement")
    board = Board(colours, cells)
    if not can_finish(board):
        return Verdict(False, None, puzzle.best_score, "illegal_tiles_on_board")
    result = score_board(board, len(puzzle.tiles) - len(used)).score
    return Verdict(result >= puzzle.best_score, result, puzzle.best_score)


def check_draft(puzzle: DraftingPuzzle, tile: int) -> Verdict:
    """The verdict on a draft: solved when `tile` is of the answer's kind and colour; its score
    is the engine's value of that choice."""
    best = puzzle.choices[0]["value"]
    column = next((c for c in reversed(puzzle.columns) if c), [])
    if not isinstance(tile, int) or isinstance(tile, bool) or tile not in column:
        return Verdict(False, None, best, "not_in_draw_column")
    value = next((c["value"] for c in puzzle.choices if _same_kind(c["tile"], tile)), None)
    return Verdict(_same_kind(tile, puzzle.answer), value, best)


def puzzle_from_json(data: dict) -> ArrangementPuzzle | DraftingPuzzle:
    """A puzzle saved by `to_json`, of either kind."""
    if data.get("kind") == "drafting":
        return DraftingPuzzle.from_json(data)
    return ArrangementPuzzle.from_json(data)
