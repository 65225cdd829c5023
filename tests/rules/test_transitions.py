"""Whose move the game waits for, and what each action changed about it: what the platform's
clock, notices and computer players act on (games/play/applying.py)."""

from games.rules import ConfirmDraft, Draft, Finish, Place, new_game, transition

from .test_state import to_finishing, turn


def test_while_drafting_the_game_waits_for_the_drafter_alone():
    state = new_game(3, 2024)
    assert state.to_move() == {0}
    assert [state.waits_for(seat) for seat in range(3)] == [True, False, False]
    state = turn(state)
    assert state.to_move() == {1}


def test_a_draft_waits_on_the_same_player_and_passes_nothing():
    before = new_game(3, 2024)
    after = before.apply(Draft(before.draw_tiles()[0]), 0)

    moved = transition(before, after)

    assert not moved.turn_passed and not moved.phase_changed and not moved.new_turn
    assert moved.waiting == moved.waiting_before == {0}
    assert moved.waiting_changed == set()


def test_a_confirmed_draft_passes_the_turn_to_the_next_seat():
    drafted = new_game(3, 2024)
    drafted = drafted.apply(Draft(drafted.draw_tiles()[0]), 0)

    moved = transition(drafted, drafted.apply(ConfirmDraft(), 0))

    assert moved.turn_passed and moved.new_turn and not moved.phase_changed
    assert (moved.current, moved.waiting, moved.waiting_changed) == (1, {1}, {0, 1})
    assert not moved.forced_take_due


def test_arranging_on_another_players_turn_changes_nothing_of_whose_move_it_is():
    state = turn(new_game(3, 2024))  # seat 0 owns a tile; it is seat 1's turn
    tile = state.trays[0][0]

    moved = transition(state, state.apply(Place(tile, 12), 0))

    assert not moved.turn_passed and moved.waiting == {1} and moved.waiting_changed == set()


def test_a_turn_that_begins_with_one_tile_in_the_draw_column_has_a_forced_take_due():
    state = new_game(2, 7)
    while len(state.draw_tiles()) > 2:
        state = turn(state)
    drafted = state.apply(Draft(state.draw_tiles()[0]), state.current)

    moved = transition(drafted, drafted.apply(ConfirmDraft(), state.current))

    assert moved.new_turn and moved.forced_take_due
    assert moved.waiting == {moved.current}  # the server takes it for them: still their turn


def test_the_last_draft_begins_the_finishing_phase_for_everyone():
    state = new_game(2, 7)
    while state.pool_size() > 1:
        state = turn(state)

    moved = transition(state, turn(state))

    assert moved.turn_passed and moved.phase_changed and moved.finishing_began
    assert not moved.new_turn and moved.current is None
    assert moved.waiting == {0, 1}


def test_finishing_stops_waiting_for_that_player_and_the_last_one_ends_the_game():
    state = to_finishing(new_game(2, 7))
    one = state.apply(Finish(), 1)

    first = transition(state, one)
    assert not first.turn_passed and first.waiting == {0} and first.waiting_changed == {1}
    assert not one.waits_for(1)

    last = transition(one, one.apply(Finish(), 0))
    assert last.ended and last.phase_changed and last.waiting == set()
