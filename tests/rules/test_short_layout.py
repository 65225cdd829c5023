"""The short layout of the guided first game: the same draw with a pool of two columns of four
a player, which plays to its end by every rule and is rebuilt by the one fold from what its
start records (the layout with the seed)."""

import json
import random

import pytest

from games.rules import (
    SHORT,
    STANDARD,
    ConfirmDraft,
    GameState,
    Replay,
    RuleError,
    TakeLast,
    deal,
    drafts_per_player,
    new_game,
    replay,
    states_from,
)
from games.rules.greedy import _do, arrange, choose_draft
from games.rules.state import DRAFTING, FINISHING, auto_finish_actions

from .helpers import play_randomly, where_is


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_short_deal_has_two_columns_of_four_a_player_and_the_rest_in_the_box(players):
    short = deal(players, 1234, SHORT)
    assert len(short.columns) == 2 * players
    assert all(len(column) == 4 for column in short.columns)
    assert len(short.removed) == 60 - 8 * players
    assert sorted([*short.removed, *(t for c in short.columns for t in c)]) == list(range(60))
    assert drafts_per_player(players, SHORT) == 8
    # The rules' own deal is the same with or without the layout named, and differs.
    assert deal(players, 1234) == deal(players, 1234, STANDARD) != short
    assert new_game(players, 1234, layout=SHORT).layout == SHORT


def test_an_unknown_layout_deals_no_game():
    with pytest.raises(RuleError) as error:
        new_game(2, 5, layout="tiny")
    assert error.value.code == "bad_setup"
    with pytest.raises(RuleError):
        states_from({"players": 2, "seed": 5, "layout": "tiny"}, []).__next__()


def greedy_short_game(players: int, seed: int):
    """A whole short game with greedy players, as benchmarks/simulate.py plays a standard one."""
    state = new_game(players, seed, layout=SHORT)
    events: list = []
    while state.phase == DRAFTING:
        seat = state.current
        forced = state.forced_action()
        if forced is None:
            state = _do(state, choose_draft(state, seat), seat, events)
        else:
            state = _do(state, forced, seat, events)
        state = arrange(state, seat, events)
        if forced is None:
            state = _do(state, ConfirmDraft(), seat, events)
    for seat in range(players):
        if state.phase == FINISHING and not state.finished[seat]:
            state = arrange(state, seat, events)
            for action in auto_finish_actions(state, seat):
                state = _do(state, action, seat, events)
    return state, events


@pytest.mark.parametrize("players", [2, 3])
def test_a_whole_short_game_plays_to_its_end_and_replays_from_its_start(players):
    final, events = greedy_short_game(players, 107)
    assert final.is_terminal() and all(final.finished)
    assert [final.drafted(seat) for seat in range(players)] == [8] * players
    assert any(isinstance(action, TakeLast) for _, action in events)  # columns of 4, 2 a seat
    assert len(where_is(final)) == 60
    assert final.layout == SHORT and final.results()
    start = {"players": players, "seed": 107, "first_seat": 0, "layout": SHORT}
    assert Replay.from_start(start, events).final == final
    assert replay(players, 107, events, layout=SHORT) == final
    # The same log read as a standard deal is another game: it stops where a draft is not
    # from the draw column (or ends elsewhere), never the same final state.
    try:
        other = Replay.from_start({**start, "layout": STANDARD}, events).final
    except RuleError:
        other = None
    assert other != final


def test_a_short_game_of_random_moves_keeps_its_layout_through_json():
    state = new_game(2, 31, layout=SHORT)

    def check(now: GameState):
        assert GameState.from_json(json.loads(json.dumps(now.to_json()))) == now

    final, events = play_randomly(state, random.Random(31), check=check)
    assert final.is_terminal()
    assert final.to_json()["layout"] == SHORT
    assert Replay.from_start({"players": 2, "seed": 31, "layout": SHORT}, events).final == final


def test_the_pool_keeps_its_rows_in_a_short_deal():
    state = new_game(2, 107, layout=SHORT)
    assert state.pool_rows() == ((0, 1, 2, 3),) * 4
    tile = state.draw_tiles()[1]
    state = state.apply({"type": "draft", "tile_id": tile}, 0).apply(ConfirmDraft(), 0)
    assert state.pool_rows()[-1] == (0, 2, 3)  # the tiles below stay where they were dealt


def test_a_stored_state_says_its_layout_and_a_wrong_one_is_refused():
    data = new_game(2, 107, layout=SHORT).to_json()
    assert GameState.from_json(data).layout == SHORT
    with pytest.raises(RuleError):
        GameState.from_json({**data, "layout": STANDARD})  # 16 tiles in the pool: not that deal
    assert "layout" in new_game(2, 107).to_json()
    legacy = {k: v for k, v in new_game(2, 107).to_json().items() if k != "layout"}
    assert GameState.from_json(legacy) == new_game(2, 107)
