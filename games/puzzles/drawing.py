"""A puzzle as its page draws it, with the game page's own partials (a board's spaces, the
tray's tiles, the selected tile's menu, the pool's columns: templates/games/partials/), so that
the game page's scripts play it as they play a board: drag (drag.js), the tap menu, the keyboard
(keys.js), the phone's layout. The controls are worked out by games/drawing/controls.py as for
a seat of a game; this module gives it the puzzle's board as the one seat its viewer arranges."""

import json
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from games import rules
from games.drawing import controls
from games.drawing.spaces import SpaceView, TileView, space_views, tile_view
from games.drawing.view import Selection
from games.puzzles.board import SEAT, puzzle_state
from games.puzzles.models import Puzzle, PuzzleAttempt
from games.rules.board import Board, Placed, colours_from_names


@dataclass
class ArrangementView:
    """An arrangement puzzle's board and tray, drawn; the score so far and the goal."""

    rows: list[list[SafeString]]
    tray: list[SafeString]
    score: rules.Score
    best_score: int
    tile_count: int
    can_undo: bool
    can_redo: bool
    illegal: int
    open: bool
    selection: Selection
    # After the answer: the board submitted and a best one, as small boards.
    answered: list[SpaceView] = field(default_factory=list)
    best: list[SpaceView] = field(default_factory=list)


@dataclass
class DraftingView:
    """A drafting puzzle: the pool's columns (the draw column's tiles buttons while open), the
    player's tiles and board, the other players' tiles, and after the answer every choice's
    value."""

    columns: list[SafeString]
    column_count: int
    depth: int
    mine: list[TileView]
    board: list[SpaceView]
    others: list[tuple[int, list[TileView]]]
    open: bool
    choices: list[tuple[TileView, float, bool, bool]] = field(default_factory=list)
    answer: TileView | None = None
    played: TileView | None = None
    measure: str = ""


def arrangement_view(
    puzzle: Puzzle,
    attempt: PuzzleAttempt | None,
    selection: Selection | None,
    *,
    colour_blind: bool = False,
    error_space: int | None = None,
) -> ArrangementView:
    state = puzzle_state(puzzle.data, attempt)
    board, tray = state.boards[SEAT], list(state.trays[SEAT])
    is_open = attempt is None or not attempt.submitted
    chosen = selection if (selection and is_open) else Selection()
    if chosen.tray_tile is not None and chosen.tray_tile not in tray:
        chosen = Selection()
    if chosen.space is not None and board.cells[chosen.space] is None:
        chosen = Selection()
    legal = {}
    if chosen.tray_tile is not None:
        for space, rotation in rules.legal_spots(board, chosen.tray_tile):
            legal.setdefault(space, rotation)
    elif chosen.space is not None:
        rotation = board.cells[chosen.space].rotation
        legal = dict.fromkeys(rules.legal_moves(board, chosen.space), rotation)
    spaces = space_views(board, selected=chosen.space, legal=legal)
    seat = SimpleNamespace(
        is_viewer=True,
        seat=SimpleNamespace(finished=not is_open),
        left="",
        spaces=spaces,
        last_tile=None,
        tray=[tile_view(tile) for tile in tray],
        pending_tile=None,
    )
    view = SimpleNamespace(
        selection=chosen, error_space=error_space, game=SimpleNamespace(is_playing=is_open)
    )
    drawn = [_space_html(c, colour_blind) for c in controls.space_controls(view, seat)]
    found = ArrangementView(
        rows=[drawn[row : row + 5] for row in range(0, 25, 5)],
        tray=[_tray_html(c, colour_blind) for c in controls.tray_controls(view, seat)],
        score=state.score(SEAT),
        best_score=puzzle.data["best_score"],
        tile_count=len(puzzle.data["tiles"]),
        can_undo=bool(state.undo_of(SEAT)),
        can_redo=bool(state.redo_of(SEAT)),
        illegal=rules.illegal_mask(board).bit_count(),
        open=is_open,
        selection=chosen,
    )
    if not is_open:
        found.answered = space_views(board)
        found.best = _small_board(puzzle.data["colours"], puzzle.data["best_cells"])
    return found


def drafting_view(
    puzzle: Puzzle, attempt: PuzzleAttempt | None, *, colour_blind: bool = False
) -> DraftingView:
    data = puzzle.data
    is_open = attempt is None or not attempt.submitted
    columns = data["columns"]
    draw = max((i for i, column in enumerate(columns) if column), default=None)
    depth = max((len(column) for column in columns), default=0)
    drawn = []
    for number, column in enumerate(columns):
        tiles = [
            _pool_tile_html(tile, is_open and number == draw and len(column) > 1, colour_blind)
            for tile in column
        ]
        context = {"tiles": tiles, "draw": number, "drawn_from": number == draw, "next": False}
        drawn.append(mark_safe(render_to_string("games/partials/pool_column.html", context)))
    seat = data["seat"]
    found = DraftingView(
        columns=drawn,
        column_count=len(columns),
        depth=depth,
        mine=[tile_view(tile) for tile in data["holdings"][seat]],
        board=_small_board(data["colours"][seat], [None] * 25),
        others=[
            (number, [tile_view(tile) for tile in tiles])
            for number, tiles in enumerate(data["holdings"])
            if number != seat
        ],
        open=is_open,
        measure=data["measure"],
    )
    if not is_open:
        taken = (attempt.answer or {}).get("tile")
        answer = data["answer"]
        found.answer = tile_view(answer)
        found.played = tile_view(taken) if taken is not None else None
        found.choices = [
            (tile_view(c["tile"]), c["value"], _same(c["tile"], answer), _same(c["tile"], taken))
            for c in data["choices"]
        ]
    return found


def _same(a, b) -> bool:
    if a is None or b is None:
        return False
    tiles = rules.TILES
    return (tiles[a].kind, tiles[a].colour) == (tiles[b].kind, tiles[b].colour)


def _small_board(colours, cells) -> list[SpaceView]:
    board = Board(
        colours_from_names(colours), [None if c is None else Placed(c[0], c[1]) for c in cells]
    )
    return space_views(board)


def action_json(action: str, fields=()) -> SafeString:
    """A posted action's hx-vals, compact, for an attribute in single quotes (as the game's)."""
    text = json.dumps({"type": action, **dict(fields)}, separators=(",", ":"))
    return mark_safe(text.translate(_IN_SINGLE_QUOTES))


_IN_SINGLE_QUOTES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#x27;"})


def _space_html(control, colour_blind: bool) -> SafeString:
    context = {"space": control, "colour_blind": colour_blind}
    if control.vals:
        context["vals"] = action_json(control.action, control.vals)
    if control.menu:
        space = (("space", control.index),)
        context["menu"] = {
            "anticlockwise": action_json("rotate", (*space, ("quarter_turns", 3))),
            "clockwise": action_json("rotate", (*space, ("quarter_turns", 1))),
            "back": action_json("return", space),
        }
    return mark_safe(render_to_string("games/partials/space.html", context).strip())


def _tray_html(control, colour_blind: bool) -> SafeString:
    context = {"tray_tile": control, "colour_blind": colour_blind}
    return mark_safe(render_to_string("games/partials/tray_tile.html", context).strip())


def _pool_tile_html(tile: int, draftable: bool, colour_blind: bool) -> SafeString:
    control = controls.PoolControl(tile=tile_view(tile), error=False, draftable=draftable)
    context = {"pool_tile": control, "colour_blind": colour_blind}
    if draftable:
        context["vals"] = action_json("draft", (("tile_id", tile),))
    return mark_safe(render_to_string("games/partials/pool_tile.html", context).strip())
