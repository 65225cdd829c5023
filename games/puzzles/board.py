"""An arrangement puzzle's board as the rules package sees it: a seat arranging its tiles in
the finishing phase, with no opponent. A puzzle is a 2-player state whose other seat has
nothing, so that every arranging action (place, move, swap, rotate, return, clear, undo, redo)
is checked and done by the rules package as in a game (games/rules/state.py)."""

from games import rules
from games.rules.board import Board, colours_from_names
from games.rules.state import FINISHING, GameState

SEAT = 0


def puzzle_state(data: dict, attempt=None) -> GameState:
    """The state of an arrangement puzzle (`data`: its JSON) as `attempt` left it (its tiles all
    in the tray before the first change)."""
    colours = colours_from_names(data["colours"])
    if attempt is None or not attempt.board:
        board, tray, undo, redo = Board(colours), tuple(data["tiles"]), (), ()
    else:
        board = Board(colours, [None if c is None else tuple(c) for c in attempt.board])
        tray, undo, redo = tuple(attempt.tray), tuple(attempt.undo), tuple(attempt.redo)
    empty = Board(colours)
    return GameState(
        players=2,
        seed=0,
        columns=(),
        removed=(),
        trays=(tray, ()),
        boards=(board, empty),
        phase=FINISHING,
        current=None,
        finished=(False, True),
        pending=None,
        drafts=0,
        undo=(undo, ()),
        redo=(redo, ()),
    )


# The actions a puzzle takes: arranging only (no draft, no finish: submitting is its own).
ARRANGING = (
    rules.Place,
    rules.Move,
    rules.Swap,
    rules.Rotate,
    rules.Return,
    rules.Clear,
    rules.Undo,
    rules.Redo,
)


def placements(state: GameState) -> list[dict]:
    """The board of a puzzle's state as the checker takes it (games/rules/puzzles.py)."""
    return [
        {"space": space, "tile": cell.tile, "rotation": cell.rotation}
        for space, cell in state.boards[SEAT].placed()
    ]
