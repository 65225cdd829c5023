import pytest

from benchmarks.simulate import play_game
from games.rules import ConfirmDraft, Draft, TakeLast, drafts_per_player, new_game, replay
from games.rules.greedy import choose_draft, timeout_action

from .helpers import where_is


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_simulated_games_end_with_everyone_drafting_the_same_count(players):
    final, events = play_game(players, 42)
    assert final.is_terminal()
    assert all(final.finished)
    assert [final.drafted(seat) for seat in range(players)] == [
        drafts_per_player(players)
    ] * players
    assert len(where_is(final)) == 60
    assert replay(players, 42, events) == final
    assert any(isinstance(a, TakeLast) for _, a in events)


def test_simulation_is_reproducible():
    assert play_game(4, 9) == play_game(4, 9)


def test_greedy_players_sometimes_build_chips():
    chips = [r.chip_tiles for seed in range(5) for r in play_game(4, seed)[0].results()]
    assert max(chips) >= 3


def test_timeout_action():
    s = new_game(3, 4)
    assert timeout_action(s, 1) is None
    pick = timeout_action(s, 0)
    assert isinstance(pick, Draft) and pick.tile_id in s.draw_tiles()
    s = s.apply(pick, 0)
    assert timeout_action(s, 0) == ConfirmDraft()
    s = s.apply(ConfirmDraft(), 1 - 1)
    while s.forced_action() is None:
        s = s.apply(choose_draft(s, s.current), s.current).apply(ConfirmDraft(), s.current)
    assert timeout_action(s, s.current) == s.forced_action()


def test_choose_draft_is_not_always_the_first_tile():
    picks = []
    for seed in range(20):
        s = new_game(4, seed)
        picks.append(s.draw_tiles().index(choose_draft(s, 0).tile_id))
    assert set(picks) != {0}
