"""The strict-finish table option (seed 002, the online edition): Finish needs every placed path
closed. Off by default (seed 001, the rulebook's reading: an open path only warns)."""

from dataclasses import replace

import pytest

from games.rules import (
    Finish,
    GameState,
    Place,
    Return,
    auto_finish_actions,
    markers,
    new_game,
    replay,
    structures,
)
from games.rules.bots import make_bot

from .helpers import board
from .test_state import refused, to_finishing


@pytest.fixture
def open_board():
    """A finishing state where seat 0 has a single legal tile with an open path."""
    from games.rules import legal_spots

    def make(strict):
        state = to_finishing(new_game(2, 11, strict_finish=strict))
        for tile in state.trays[0]:
            for space, rotation in legal_spots(state.boards[0], tile):
                placed = state.apply(Place(tile, space, rotation), 0)
                if markers(placed.boards[0]).open_path:
                    return placed, space
        raise AssertionError("no tile with an open path")

    return make


def test_by_default_an_open_path_only_warns(open_board):
    state, _ = open_board(False)
    assert Finish() in state.legal_actions(0)
    assert state.apply(Finish(), 0).finished[0]


def test_with_the_option_finish_is_refused_and_names_the_open_paths(open_board):
    state, space = open_board(True)
    assert Finish() not in state.legal_actions(0)
    row, col = divmod(space, 5)
    error = refused(state, Finish(), 0, "open_paths_on_board")
    assert error.space == space
    assert f"row {row + 1}, column {col + 1}" in error.message
    assert "every placed path is closed" in error.message
    # Back to the tray, the board is empty: an empty board may always finish.
    empty = state.apply(Return(space), 0)
    assert Finish() in empty.legal_actions(0)
    assert empty.apply(Finish(), 0).finished[0]


def test_illegal_tiles_are_named_first():
    state = to_finishing(new_game(2, 11, strict_finish=True))
    tile = state.trays[0][0]
    # Space 0's top-left corner: any tile with a path off the board, or the wrong colour.
    for rotation in range(4):
        placed = state.apply(Place(tile, 0, rotation), 0)
        if markers(placed.boards[0]).illegal:
            refused(placed, Finish(), 0, "illegal_tiles_on_board")
            return
    raise AssertionError("no illegal placement found")


def test_the_option_is_kept_in_json_and_replays():
    state = new_game(3, 9, strict_finish=True)
    assert GameState.from_json(state.to_json()).strict_finish
    assert replay(3, 9, [], strict_finish=True).strict_finish
    assert not replay(3, 9, []).strict_finish
    old = state.to_json()
    del old["strict_finish"]  # a state saved before the option existed
    assert not GameState.from_json(old).strict_finish


def test_the_deadline_returns_tiles_until_only_closed_structures_remain():
    # A closed pair of terminals (0-1), and a chain 10-11-12 whose end 12 is open to the east:
    # returning 12 opens 11's east side, and so on, so the whole chain goes back.
    cells = {0: "end:E", 1: "end:W", 10: "end:E", 11: "straight:EW", 12: "straight:EW"}
    built = board(cells)
    state = to_finishing(new_game(2, 11, strict_finish=True))
    tray = tuple(t for t in range(60) if t not in built.tiles())[:3]
    seat0 = replace(state, boards=(built, state.boards[1]), trays=(tray, state.trays[1]))
    actions = auto_finish_actions(seat0, 0)
    assert actions[-1] == Finish()
    returned = [a.space for a in actions[:-1]]
    assert sorted(returned) == [10, 11, 12]
    assert returned[0] == 12  # the open end first, then what it leaves open
    final = built.with_cells(dict.fromkeys(returned))
    assert not markers(final).open_path and not markers(final).illegal
    assert all(s.closed for s in structures(final))
    # Without the option only illegal tiles go back: the open chain stays.
    lenient = replace(seat0, strict_finish=False)
    assert auto_finish_actions(lenient, 0) == [Finish()]


@pytest.mark.parametrize("level", ["easy", "strong"])
def test_computer_players_finish_a_strict_table(level):
    options = (
        {"draft_time": 0.05, "arrange_time": 0.05, "finish_time": 0.2} if level == "strong" else {}
    )
    bot = make_bot(level, **options)
    state = new_game(2, 3, strict_finish=True)
    while not state.is_terminal():
        seats = [state.current] if state.current is not None else sorted(state.to_move())
        for seat in seats:
            forced = state.forced_action()
            actions = [forced] if forced is not None else bot.next_actions(state, seat)
            for action in actions:
                if isinstance(action, Finish):
                    assert not markers(state.boards[seat]).open_path
                state = state.apply(action, seat)
    for seat in range(2):
        assert all(s.closed for s in structures(state.boards[seat]))
