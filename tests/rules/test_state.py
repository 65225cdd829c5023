from dataclasses import replace

import pytest

from games.rules import (
    Clear,
    ConfirmDraft,
    Draft,
    Finish,
    GameState,
    Move,
    Place,
    Placed,
    Return,
    Rotate,
    RuleError,
    Swap,
    TakeLast,
    UndoDraft,
    new_game,
)
from games.rules.tiles import TILES


def refused(state, action, seat, code, message=None):
    """Assert the action is refused with this code (and message); return the error."""
    before = state.to_json()
    with pytest.raises(RuleError) as exc:
        state.apply(action, seat)
    assert exc.value.code == code, exc.value
    if message is not None:
        assert exc.value.message == message
    assert state.to_json() == before  # nothing changed
    return exc.value


def turn(state, tile=None):
    """Complete the current seat's turn: the forced take, or draft (first tile) and confirm."""
    seat = state.current
    forced = state.forced_action()
    if forced is not None:
        return state.apply(forced, seat)
    tile = state.draw_tiles()[0] if tile is None else tile
    return state.apply(Draft(tile), seat).apply(ConfirmDraft(), seat)


def to_finishing(state):
    while state.phase == "drafting":
        state = turn(state)
    return state


@pytest.fixture
def game():
    return new_game(3, 2024)


# --- drafting ----------------------------------------------------------------------------------


def test_draft_is_pending_until_confirmed(game):
    tile = game.draw_tiles()[2]
    s = game.apply(Draft(tile), 0)
    assert s.trays[0] == (tile,)
    assert tile not in s.columns[11]
    assert len(s.columns[11]) == 4
    assert s.current == 0
    assert s.pending.tile_id == tile
    assert s.drafts == 0 and s.drafted(0) == 0 and s.owned(0) == 1
    assert s.legal_actions(0, arranging=False) == [ConfirmDraft(), UndoDraft()]
    assert s.legal_actions(1, arranging=False) == []
    s = s.apply(ConfirmDraft(), 0)
    assert s.pending is None
    assert s.current == 1
    assert s.drafts == 1 and s.drafted(0) == 1
    assert game.trays[0] == ()  # the old state is untouched


def test_draft_from_any_row_of_the_draw_column(game):
    assert game.legal_actions(0, arranging=False) == [Draft(t) for t in game.columns[11]]
    for tile in game.columns[11]:
        assert game.apply(Draft(tile), 0).trays[0] == (tile,)


def test_undo_puts_the_tile_back_at_its_place_in_the_column(game):
    for index, tile in enumerate(game.columns[11]):
        s = game.apply(Draft(tile), 0)
        s = s.apply(UndoDraft(), 0)
        assert s.columns == game.columns
        assert s.trays == game.trays
        assert s.pending is None
        assert s == game
        assert s.columns[11][index] == tile


def test_undo_takes_the_tile_off_the_board_if_it_was_placed(game):
    tile = game.draw_tiles()[1]
    s = game.apply(Draft(tile), 0)
    s = s.apply(Place(tile, 12, 1), 0).apply(Move(12, 3), 0).apply(Rotate(3), 0)
    assert s.boards[0].cells[3] == Placed(tile, 2)
    s = s.apply(UndoDraft(), 0)
    assert s == game


def test_undo_then_draft_another(game):
    a, b = game.draw_tiles()[:2]
    s = game.apply(Draft(a), 0).apply(UndoDraft(), 0).apply(Draft(b), 0).apply(ConfirmDraft(), 0)
    assert s.trays[0] == (b,)
    assert a in s.columns[11]


def test_turns_go_in_seat_order_from_the_first_seat():
    s = new_game(4, 1, first_seat=2)
    seen = []
    for _ in range(6):
        seen.append(s.current)
        s = turn(s)
    assert seen == [2, 3, 0, 1, 2, 3]


def test_forced_take_of_the_last_tile(game):
    s = game
    for _ in range(4):
        s = turn(s)
    last = s.columns[11][0]
    assert len(s.columns[11]) == 1
    assert s.current == 1
    assert s.forced_action() == TakeLast(last)
    assert s.legal_actions(1, arranging=False) == [TakeLast(last)]
    assert s.legal_actions(0, arranging=False) == []
    refused(s, Draft(last), 1, "forced_action_due",
            "The last tile of the draw column must be taken first.")  # fmt: skip
    refused(s, Draft(last), 0, "forced_action_due")
    refused(s, TakeLast(last), 2, "not_your_turn")
    refused(s, TakeLast(s.columns[10][0]), 1, "bad_action",
            "That is not the last tile of the draw column.")  # fmt: skip
    t = s.apply(TakeLast(last), 1)
    assert t.trays[1][-1] == last
    assert t.current == 2
    assert t.pending is None
    assert t.draw_column() == 10
    assert t.forced_action() is None
    assert t.drafts == 5


def test_forced_take_in_a_five_player_game_comes_after_five_drafts():
    s = new_game(5, 3)
    for _ in range(5):
        assert s.forced_action() is None
        s = turn(s)
    assert s.forced_action() is not None
    assert s.current == 0


def test_no_forced_action_to_take(game):
    refused(game, TakeLast(game.draw_tiles()[0]), 0, "no_forced_action",
            "There is no last tile to take now.")  # fmt: skip


def test_pool_empty_starts_finishing(game):
    s = to_finishing(game)
    assert s.phase == "finishing"
    assert s.current_player() is None
    assert s.draw_column() is None
    assert s.forced_action() is None
    assert [s.drafted(seat) for seat in range(3)] == [20, 20, 20]
    assert s.drafts == 60


# --- refusals while drafting -------------------------------------------------------------------


def test_not_your_turn(game):
    e = refused(game, Draft(game.draw_tiles()[0]), 1, "not_your_turn", "It is not your turn.")
    assert e.to_json()["message"] == "It is not your turn."


def test_not_in_draw_column(game):
    other = game.columns[0][0]
    e = refused(game, Draft(other), 0, "not_in_draw_column", "That tile is not in the draw column.")
    assert e.tile == other


def test_draft_pending(game):
    a, b = game.draw_tiles()[:2]
    s = game.apply(Draft(a), 0)
    refused(s, Draft(b), 0, "draft_pending",
            "You have already drafted a tile: confirm or undo it first.")  # fmt: skip
    refused(s, Draft(b), 1, "not_your_turn")
    refused(s, ConfirmDraft(), 1, "not_your_turn")
    refused(s, UndoDraft(), 1, "not_your_turn")


def test_no_pending_draft(game):
    refused(game, ConfirmDraft(), 0, "no_pending_draft", "You have no draft to confirm or undo.")
    refused(game, UndoDraft(), 0, "no_pending_draft")


def test_finish_while_drafting(game):
    refused(game, Finish(), 0, "wrong_phase", "You can finish only when the pool is empty.")


@pytest.mark.parametrize("seat", [-1, 3, "0", None, True])
def test_bad_seat(game, seat):
    refused(game, Draft(game.draw_tiles()[0]), seat, "bad_seat")
    with pytest.raises(RuleError):
        game.legal_actions(seat)


def test_bad_action(game):
    refused(game, {"type": "fly"}, 0, "bad_action")
    refused(game, "draft", 0, "bad_action")


# --- arranging ---------------------------------------------------------------------------------


@pytest.fixture
def stocked():
    """3 players after two rounds: every seat has two tiles."""
    s = new_game(3, 77)
    for _ in range(6):
        s = turn(s)
    return s


def test_arranging_on_anyone_s_turn(stocked):
    assert stocked.current == 0
    a, b = stocked.trays[1]
    s = stocked.apply(Place(a, 12, 1), 1)
    assert s.boards[1].cells[12] == Placed(a, 1)
    assert s.trays[1] == (b,)
    assert s.current == 0
    # Also while another seat has a pending draft.
    s = s.apply(Draft(s.draw_tiles()[0]), 0).apply(Place(b, 0, 3), 1)
    assert s.boards[1].cells[0] == Placed(b, 3)


def test_place_anywhere_even_illegally(stocked):
    a = stocked.trays[0][0]
    for space in (0, 4, 12, 24):
        for rotation in range(4):
            s = stocked.apply(Place(a, space, rotation), 0)
            assert s.boards[0].cells[space] == Placed(a, rotation)


def test_rotate_move_swap_return_clear(stocked):
    a, b = stocked.trays[2]
    s = stocked.apply(Place(a, 6, 0), 2).apply(Place(b, 7, 1), 2)
    s = s.apply(Rotate(6), 2)
    assert s.boards[2].cells[6] == Placed(a, 1)
    s = s.apply(Rotate(6, 3), 2)
    assert s.boards[2].cells[6] == Placed(a, 0)
    s = s.apply(Move(6, 20), 2)
    assert s.boards[2].cells[6] is None and s.boards[2].cells[20] == Placed(a, 0)
    s = s.apply(Swap(20, 7), 2)
    assert s.boards[2].cells[20] == Placed(b, 1) and s.boards[2].cells[7] == Placed(a, 0)
    s = s.apply(Return(20), 2)
    assert s.trays[2] == (b,)
    s = s.apply(Place(b, 24, 2), 2).apply(Clear(), 2)
    assert s.trays[2] == (a, b)  # in space order: 7 then 24
    assert s.boards[2].tile_count == 0
    assert s.apply(Clear(), 2) == s  # clearing an empty board changes nothing


def test_arranging_refusals(stocked):
    a, b = stocked.trays[0]
    other = stocked.trays[1][0]
    s = stocked.apply(Place(a, 6, 0), 0)
    e = refused(s, Place(other, 7, 0), 0, "tile_not_in_tray", "That tile is not in your tray.")
    assert e.tile == other
    e = refused(s, Place(b, 6, 0), 0, "space_occupied", "That space already holds a tile.")
    assert e.space == 6
    refused(s, Place(b, 25, 0), 0, "bad_space", "There is no space 25: spaces are 0 to 24.")
    refused(s, Place(b, -1, 0), 0, "bad_space")
    refused(s, Place(b, 7, 4), 0, "bad_rotation", "A rotation is 0, 1, 2 or 3 quarter turns.")
    e = refused(s, Rotate(7), 0, "space_empty", "There is no tile on that space.")
    assert e.space == 7
    refused(s, Rotate(6, 0), 0, "bad_rotation", "Turn a tile by 1, 2 or 3 quarter turns.")
    refused(s, Rotate(6, 4), 0, "bad_rotation")
    refused(s, Move(7, 8), 0, "space_empty")
    refused(s, Move(6, 6), 0, "bad_action", "Move the tile to another space.")
    s2 = s.apply(Place(b, 8, 0), 0)
    refused(s2, Move(6, 8), 0, "space_occupied")
    refused(s2, Swap(6, 6), 0, "bad_action", "Choose two different tiles to swap.")
    refused(s2, Swap(6, 9), 0, "space_empty")
    refused(s2, Return(9), 0, "space_empty")
    refused(s2, Return(99), 0, "bad_space")


# --- finishing ---------------------------------------------------------------------------------


def test_finish_with_tiles_in_tray_and_an_empty_board(game):
    s = to_finishing(game)
    assert Finish() in s.legal_actions(0, arranging=False)
    s = s.apply(Finish(), 0)
    assert s.finished == (True, False, False)
    assert s.phase == "finishing"
    assert s.legal_actions(0) == []
    refused(s, Finish(), 0, "board_finished", "You have already finished.")
    refused(s, Place(s.trays[0][0], 0, 0), 0, "board_finished",
            "Your board is finished and can no longer change.")  # fmt: skip
    refused(s, Clear(), 0, "board_finished")
    refused(s, Draft(0), 1, "wrong_phase", "Drafting is over: the pool is empty.")
    refused(s, ConfirmDraft(), 1, "wrong_phase")
    refused(s, TakeLast(0), 1, "wrong_phase")
    s = s.apply(Finish(), 2).apply(Finish(), 1)
    assert s.phase == "ended"
    assert s.is_terminal()
    for seat in range(3):
        assert s.legal_actions(seat) == []
    assert [r.score for r in s.results()] == [-40, -40, -40]
    assert [r.place for r in s.results()] == [1, 1, 1]


def _tile_of(state, seat, kind):
    for t in state.trays[seat]:
        if TILES[t].kind == kind:
            return t
    return None


def test_finish_refused_with_an_illegal_tile_allowed_with_a_warning(game):
    s = to_finishing(game)
    tile = s.trays[0][0]
    s1 = s.apply(Place(tile, 0, 0), 0)  # every kind has a north path at rotation 0: off board
    assert Finish() not in s1.legal_actions(0, arranging=False)
    e = refused(s1, Finish(), 0, "illegal_tiles_on_board",
                "You cannot finish while a tile on your board is illegal.")  # fmt: skip
    assert e.space == 0
    # A legal spot gives at most a warning, which does not block finishing.
    from games.rules import legal_spots

    tile, space, rotation = next(
        (t, *spot) for t in s.trays[0] for spot in legal_spots(s.boards[0], t)
    )
    s2 = s.apply(Place(tile, space, rotation), 0)
    assert s2.boards[0].cells[space] is not None
    assert s2.apply(Finish(), 0).finished[0]


def test_returning_illegal_tiles_then_finishing(game):
    from games.rules import auto_finish_actions

    s = to_finishing(game)
    a, b = s.trays[1][:2]
    s = s.apply(Place(a, 0, 0), 1).apply(Place(b, 24, 2), 1)
    actions = auto_finish_actions(s, 1)
    assert actions == [Return(0), Return(24), Finish()]
    for action in actions:
        s = s.apply(action, 1)
    assert s.finished[1]
    assert s.boards[1].tile_count == 0


def test_results_rank_and_share_places(game):
    s = to_finishing(game)
    boards = list(s.boards)
    trays = list(s.trays)
    # Seat 0: a closed pair of terminals (2 - 2 x 18 = -34, 2 chip tiles).
    # Seat 1: the same. Seat 2: nothing placed (-40).
    from .helpers import board

    for seat in (0, 1):
        boards[seat] = board({0: "end:E", 1: "end:W"})
        trays[seat] = trays[seat][:18]
    fake = replace(s, boards=tuple(boards), trays=tuple(trays))
    results = fake.results()
    assert [(r.score, r.chip_tiles, r.chip_value, r.penalty_tiles, r.place) for r in results] == [
        (-34, 2, 2, 18, 1),
        (-34, 2, 2, 18, 1),
        (-40, 0, 0, 20, 3),
    ]
    assert fake.returns() == (-34, -34, -40)


def test_state_is_immutable(game):
    with pytest.raises(AttributeError):
        game.phase = "ended"
    with pytest.raises(AttributeError):
        game.boards[0].occ = 1
    assert isinstance(game, GameState)
