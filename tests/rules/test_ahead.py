"""Drafting ahead (games/rules/ahead.py): the column a seat's next turn draws from, which tiles it
may queue, and which one is drafted when its turn begins."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import ConfirmDraft, Draft, RuleError, UndoDraft, new_game, transition
from games.rules.ahead import MAX_QUEUED, NextTurn, check_queue, next_turn, queued_draft, tile_words

from .test_state import to_finishing, turn


def refused(state, seat, tiles, code, message=None):
    with pytest.raises(RuleError) as exc:
        check_queue(state, seat, tiles)
    assert exc.value.code == code, exc.value
    if message is not None:
        assert exc.value.message == message
    return exc.value


def test_each_seat_s_next_turn_draws_from_the_draw_column_after_the_drafts_before_it():
    state = new_game(3, 2024)  # 12 columns of 5; seat 0 drafts

    turns = [next_turn(state, seat) for seat in (1, 2)]
    assert [(t.turns_before, t.column, t.left) for t in turns] == [(1, 11, 4), (2, 11, 3)]
    # The seat drafting now: its next turn is a round away.
    assert (next_turn(state, 0).turns_before, next_turn(state, 0).left) == (3, 2)


def test_a_pending_draft_has_taken_its_tile_already_and_an_undo_changes_nothing():
    state = new_game(3, 2024)
    before = [next_turn(state, seat) for seat in range(3)]
    drafted = state.apply(Draft(state.draw_tiles()[2]), 0)

    assert [next_turn(drafted, seat) for seat in range(3)] == before
    undone = drafted.apply(UndoDraft(), 0)
    assert [next_turn(undone, seat) for seat in range(3)] == before


def test_the_next_turn_reaches_into_the_next_column_when_the_draw_column_runs_out():
    state = new_game(5, 7)  # 10 columns of 6: the 6th tile is a forced take
    for _ in range(4):
        state = turn(state)  # 2 tiles left in column 10; seat 4 drafts
    assert state.current == 4 and len(state.draw_tiles()) == 2

    assert next_turn(state, 0) == NextTurn(0, 1, 9, 1)  # the forced take
    assert (next_turn(state, 1).column, next_turn(state, 1).left) == (8, 6)
    assert (next_turn(state, 3).column, next_turn(state, 3).left) == (8, 4)
    assert next_turn(state, 0).forced and not next_turn(state, 1).forced


def test_no_next_turn_when_drafting_ends_before_it():
    state = new_game(2, 5)
    while state.pool_size() > 1:
        state = turn(state)
    # One tile left: the next seat takes it, and then the pool is empty.
    assert next_turn(state, state.current) is None
    assert next_turn(to_finishing(state), 0) is None


def test_a_queue_of_the_next_column_s_tiles_is_accepted_best_first():
    state = new_game(3, 2024)
    column = state.columns[11]

    turn_of_1 = check_queue(state, 1, [column[3], column[0]])

    assert turn_of_1.column == 11
    assert check_queue(state, 1, []) is None  # clearing is always allowed


def test_each_refusal_says_why():
    state = new_game(3, 2024)
    draw = state.columns[11]
    other = state.columns[10][0]

    refused(state, 0, [draw[0]], "your_turn_now", "It is your turn: draft now.")
    refused(state, 1, [draw[0], draw[1], draw[0]], "bad_queue")
    too_many = [*draw, other, state.columns[9][0]]
    refused(
        state, 1, too_many, "bad_queue", f"Queue at most {MAX_QUEUED} tiles: no column holds more."
    )
    error = refused(state, 1, [draw[0], other], "not_in_next_column")
    assert error.tile == other and "column 11, but your next turn draws from column 12" in str(
        error
    )
    refused(state, 1, [99], "bad_action")
    refused(state, 1, ["7"], "bad_action")
    drafted = turn(state, draw[0])  # now in seat 0's tray
    refused(
        drafted,
        2,
        [draw[0]],
        "not_in_next_column",
        f"The {tile_words(draw[0])} is not in the pool.",
    )
    refused(to_finishing(state), 1, [0], "wrong_phase")


def test_a_next_turn_that_is_a_forced_take_has_nothing_to_queue():
    state = new_game(2, 5)
    for _ in range(3):
        state = turn(state)  # 2 tiles left in the draw column; seat 1 drafts, then seat 0 takes
    error = refused(state, 0, [state.draw_tiles()[0]], "nothing_to_queue")
    assert "one tile left in column 10: the server takes it for you" in error.message


def test_the_draft_taken_is_the_first_queued_tile_still_in_the_draw_column():
    state = new_game(3, 2024)
    column = state.columns[11]
    state = turn(state, column[1])  # seat 0 takes the second tile; seat 1's turn begins

    assert queued_draft(state, 1, [column[1], column[4], column[2]]) == column[4]
    assert queued_draft(state, 1, [column[1]]) is None  # none left
    assert queued_draft(state, 2, [column[4]]) is None  # not their turn
    pending = state.apply(Draft(column[0]), 1)
    assert queued_draft(pending, 1, [column[4]]) is None  # they drafted already


# --- the property: the prediction is what a playout finds -------------------------------------


def random_drafting_step(state, rng):
    """One drafting action of the current seat, at random: a forced take, a draft, an undo (now
    and then) or a confirmation."""
    seat = state.current
    forced = state.forced_action()
    if forced is not None:
        return state.apply(forced, seat)
    if state.pending is None:
        return state.apply(Draft(rng.choice(state.draw_tiles())), seat)
    return state.apply(UndoDraft() if rng.random() < 0.2 else ConfirmDraft(), seat)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.sampled_from([2, 3, 4, 5]),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 140),
    play_seed=st.integers(0, 2**32),
)
def test_the_predicted_column_is_the_draw_column_when_each_seat_s_turn_begins(
    players, seed, steps, play_seed
):
    rng = random.Random(play_seed)
    state = new_game(players, seed)
    for _ in range(steps):
        if state.phase != "drafting":
            break
        state = random_drafting_step(state, rng)
    predicted = {seat: next_turn(state, seat) for seat in range(players)}
    found = {}
    while state.phase == "drafting" and len(found) < players:
        before, state = state, random_drafting_step(state, rng)
        moved = transition(before, state)
        if moved.new_turn and moved.current not in found:
            found[moved.current] = (state.draw_column(), len(state.draw_tiles()))
            assert (state.forced_action() is not None) == predicted[moved.current].forced
    for seat in range(players):
        expected = predicted[seat]
        assert found.get(seat) == (None if expected is None else (expected.column, expected.left))
