import json

import pytest

from benchmarks.simulate import play_game
from games.rules import Draft, GameState, Place, Replay, RuleError, new_game, replay, states_from


def test_new_game_round_trips_through_json_text():
    s = new_game(2, 11)
    data = json.loads(json.dumps(s.to_json()))
    assert GameState.from_json(data) == s
    assert GameState.from_json(data).to_json() == data


def test_mid_game_with_pending_draft_round_trips():
    s = new_game(4, 5)
    tile = s.draw_tiles()[3]
    s = s.apply(Draft(tile), 0).apply(Place(tile, 7, 3), 0)
    data = json.loads(json.dumps(s.to_json()))
    assert data["pending"] == {"seat": 0, "tile_id": tile, "column": 11, "index": 3}
    assert data["boards"][0][7] == [tile, 3]
    assert GameState.from_json(data) == s


def test_final_state_round_trips_and_replays():
    final, events = play_game(5, 8)
    assert GameState.from_json(json.loads(json.dumps(final.to_json()))) == final
    log = [(seat, action.to_json()) for seat, action in events]
    assert replay(5, 8, json.loads(json.dumps(log))) == final


def test_a_game_is_rebuilt_from_what_its_start_records():
    final, events = play_game(3, 9, 2)
    log = json.loads(json.dumps([(seat, action.to_json()) for seat, action in events]))
    start = {"players": 3, "seed": 9, "first_seat": 2, "seats": [7, 8, 9]}  # as recorded
    assert Replay.from_start(start, log).final == final == replay(3, 9, log, 2)
    assert list(states_from(start, log)) == list(Replay.from_start(start, log).states)
    # An older start without the first seat or the strict-finish option: seat 0, not strict.
    assert Replay.from_start({"players": 2, "seed": 4}, []).final == new_game(2, 4)
    strict = Replay.from_start({"players": 2, "seed": 4, "strict_finish": True}, []).final
    assert strict == new_game(2, 4, strict_finish=True) != new_game(2, 4)
    with pytest.raises(KeyError):
        next(states_from({"players": 2}, []))


def _damaged(mutate):
    data = new_game(3, 1).to_json()
    mutate(data)
    with pytest.raises(RuleError) as exc:
        GameState.from_json(data)
    assert exc.value.code == "bad_state"
    return exc.value.message


def test_damaged_states_are_refused():
    assert "exactly one place" in _damaged(lambda d: d["trays"][0].append(d["columns"][0][0]))
    assert "phase" in _damaged(lambda d: d.update(phase="lunch"))
    assert "format" in _damaged(lambda d: d.update(format=99))
    _damaged(lambda d: d.pop("seed"))
    _damaged(lambda d: d.update(players=9))
    _damaged(lambda d: d["colours"][0].__setitem__(0, "purple"))
    _damaged(lambda d: d["boards"][0].__setitem__(0, [999, 0]))
    _damaged(lambda d: d.update(current=None))
    _damaged(lambda d: d.update(drafts=3))
    _damaged(lambda d: d.update(pending={"seat": 0}))
    with pytest.raises(RuleError):
        GameState.from_json("not a dict")
