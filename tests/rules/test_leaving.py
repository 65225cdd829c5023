"""Leaving a game in the rules: `Resign` (a resignation, or an absent player's seat handed to
the platform's stand-in), the early end when at most one seat stays, `Conclude` (the platform
ends a game no person is left playing), and the ranking of those who left."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import (
    ENDED,
    Clear,
    Conclude,
    ConfirmDraft,
    Draft,
    Finish,
    GameState,
    Resign,
    RuleError,
    new_game,
    places,
    replay,
)

from .helpers import random_arranging
from .test_properties import check_invariants


def draft(state, seat=None):
    """The seat whose turn it is drafts the top tile and confirms it (or the forced take)."""
    seat = state.current if seat is None else seat
    forced = state.forced_action()
    if forced is not None:
        return state.apply(forced, seat)
    state = state.apply(Draft(state.draw_tiles()[0]), seat)
    return state.apply(ConfirmDraft(), seat)


def refused(state, action, seat) -> str:
    with pytest.raises(RuleError) as caught:
        state.apply(action, seat)
    return caught.value.code


# --- the ranking ---------------------------------------------------------------------------------


def test_leavers_come_after_every_seat_that_stayed_whatever_their_score():
    assert places([(-30, 0), (40, 12), (-2, 1)], [None, 5, None]) == [2, 3, 1]


def test_who_stayed_longer_ranks_higher_and_the_same_turn_shares_a_place():
    keys = [(5, 2), (9, 9), (9, 9), (9, 9), (0, 0)]
    assert places(keys, [None, 9, 4, 9, None]) == [1, 3, 5, 3, 2]


def test_without_leavers_the_ranking_is_the_scores_alone():
    assert places([(5, 2), (5, 2), (1, 0)], [None, None, None]) == [1, 1, 3]
    assert places([(5, 2), (5, 2), (1, 0)]) == [1, 1, 3]


# --- resigning -----------------------------------------------------------------------------------


def test_a_resignation_records_the_turn_and_the_game_goes_on():
    state = draft(draft(new_game(3, 7)))  # two drafts: turn 3 is under way
    after = state.apply(Resign(), 1)
    assert after.left == (None, 3, None)
    assert after.phase == "drafting" and after.current == 2
    assert after.staying() == (0, 2)
    # The seat still plays in the rules: its stand-in drafts for it when its turn comes.
    after = draft(draft(after))
    assert after.current == 1
    after = draft(after, 1)
    assert after.drafted(1) == 2


def test_a_resigning_seat_is_ranked_last_even_with_the_best_board():
    state = new_game(3, 11)
    for _ in range(6):
        state = draft(state)
    state = state.apply(Resign(), 0)
    results = {r.seat: r.place for r in state.results()}
    assert results[0] == 3
    assert sorted([results[1], results[2]])[0] == 1


def test_in_a_two_player_game_a_resignation_ends_it_and_the_other_player_wins():
    state = draft(new_game(2, 3))
    state = state.apply(Draft(state.draw_tiles()[0]), 1)  # seat 1's draft is pending
    after = state.apply(Resign(), 0)
    assert after.phase == ENDED and after.is_terminal()
    assert after.current is None and after.pending is None
    assert after.ended_early()
    # The draft not confirmed is put back where it was: it never happened.
    assert after.columns == draft(new_game(2, 3)).columns
    assert after.drafted(1) == 0 and after.drafts == 1
    assert [r.place for r in after.results()] == [2, 1]
    after.validate()


def test_the_last_seat_to_stay_ends_the_game_and_the_leavers_rank_in_reverse_order():
    state = new_game(5, 5).apply(Resign(), 2)  # in turn 1
    state = draft(draft(state))
    state = state.apply(Resign(), 0).apply(Resign(), 3)  # both in turn 3
    state = draft(state)
    assert state.phase == "drafting" and state.staying() == (1, 4)
    state = state.apply(Resign(), 4)  # in turn 4: seat 1 alone stays
    assert state.phase == ENDED
    assert [r.place for r in state.results()] == [3, 1, 5, 3, 2]


def test_resign_is_refused_twice_after_finishing_and_after_the_end():
    state = new_game(3, 1).apply(Resign(), 1)
    assert refused(state, Resign(), 1) == "already_left"
    assert refused(state, Resign(), 7) == "bad_seat"
    ended = new_game(2, 1).apply(Resign(), 0)
    assert refused(ended, Resign(), 1) == "wrong_phase"
    assert refused(ended, Conclude(), 1) == "wrong_phase"


def test_a_seat_that_finished_cannot_resign():
    state = new_game(2, 9)
    while state.phase == "drafting":
        state = draft(state)
    state = state.apply(Finish(), 0)
    assert refused(state, Resign(), 0) == "board_finished"
    # The other may: then the game ends, the finished seat first.
    after = state.apply(Resign(), 1)
    assert after.phase == ENDED and [r.place for r in after.results()] == [1, 2]


# --- concluding ----------------------------------------------------------------------------------


def test_conclude_needs_a_seat_that_left_and_ends_the_game_with_the_boards_as_they_stand():
    state = draft(draft(new_game(3, 4)))
    assert refused(state, Conclude(), 0) == "nobody_left"
    before = state.apply(Resign(), 0)
    state = before.apply(Draft(before.draw_tiles()[0]), before.current)
    ended = state.apply(Conclude(), 0)
    assert ended.phase == ENDED and ended.pending is None and ended.current is None
    # The boards as they stand; the draft not confirmed put back.
    assert (ended.boards, ended.trays, ended.columns) == (
        before.boards,
        before.trays,
        before.columns,
    )
    assert ended.drafts == 2
    places_of = [r.place for r in ended.results()]
    assert places_of[0] == 3 and sorted(places_of[1:]) in ([1, 2], [1, 1])


# --- the state in JSON ---------------------------------------------------------------------------


def test_the_turns_of_leaving_go_through_json_and_replay():
    state = draft(new_game(3, 2)).apply(Resign(), 2)
    data = json.loads(json.dumps(state.to_json()))
    assert data["left"] == [None, None, 2]
    assert GameState.from_json(data) == state
    events = [(0, Draft(new_game(3, 2).draw_tiles()[0])), (0, ConfirmDraft()), (2, Resign())]
    log = json.loads(json.dumps([(seat, action.to_json()) for seat, action in events]))
    assert replay(3, 2, log) == state


def test_a_state_saved_before_leaving_existed_loads_with_everyone_staying():
    data = new_game(2, 8).to_json()
    del data["left"]
    state = GameState.from_json(data)
    assert state.staying() == (0, 1) and state.left_in(1) is None


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"left": [None]}, "one turn of leaving per seat"),
        ({"left": [None, 5, None]}, "a turn that has not come"),
        ({"left": [None, True, None]}, "a turn that has not come"),
        ({"left": [1, 1, None]}, "at most one player left has ended"),
        ({"phase": "ended", "current": None}, "only when players have left"),
    ],
)
def test_validation_refuses_inconsistent_leaving(change, why):
    data = {**new_game(3, 6).to_json(), **change}
    with pytest.raises(RuleError, match=why):
        GameState.from_json(data)


# --- playouts ------------------------------------------------------------------------------------


def play_with_resignations(state, rng, resign_chance):
    """Random play (as tests/rules/helpers.py plays) in which, before each step, a seat that may
    resigns now and then; return the final state and the events."""
    events = []

    def do(action, seat):
        nonlocal state
        state = state.apply(action, seat)
        events.append((seat, action))
        check_invariants(state)

    while not state.is_terminal():
        may = [s for s in state.staying() if not state.finished[s]]
        if rng.random() < resign_chance * len(may):
            do(Resign(), rng.choice(may))
            continue
        seat = rng.randrange(state.players)
        arranging = random_arranging(state, seat, rng) if rng.random() < 0.3 else None
        if arranging is not None:
            do(arranging, seat)
        elif state.phase == "drafting":
            actions = state.legal_actions(state.current, arranging=False)
            if len(actions) == 2 and rng.random() < 0.7:
                actions = actions[:1]  # undo a draft sometimes, not forever
            do(rng.choice(actions), state.current)
        else:
            seat = rng.choice([s for s in range(state.players) if not state.finished[s]])
            if Finish() not in state.legal_actions(seat, arranging=False):
                do(Clear(), seat)
            do(Finish(), seat)
    return state, events


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.sampled_from([2, 3, 4, 5]),
    seed=st.integers(0, 2**32),
    play_seed=st.integers(0, 2**32),
    chance=st.sampled_from([0.002, 0.01, 0.05]),
)
def test_playouts_with_resignations_always_end_and_rank_the_leavers_last(
    players, seed, play_seed, chance
):
    rng = random.Random(play_seed)
    final, events = play_with_resignations(new_game(players, seed), rng, chance)
    assert final.is_terminal()
    results = final.results()
    stayed = [r for r in results if final.left_in(r.seat) is None]
    gone = [r for r in results if final.left_in(r.seat) is not None]
    assert all(s.place < g.place for s in stayed for g in gone)
    for a in gone:
        for b in gone:
            if final.left_in(a.seat) > final.left_in(b.seat):
                assert a.place < b.place
            if final.left_in(a.seat) == final.left_in(b.seat):
                assert a.place == b.place
    assert all(final.finished) or final.ended_early()
    assert all(final.finished) or len(final.staying()) <= 1
    log = json.loads(json.dumps([(seat, action.to_json()) for seat, action in events]))
    assert replay(players, seed, log) == final
