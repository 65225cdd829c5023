"""The short run of `python -m benchmarks tournament`: a whole Swiss of computer players on the
platform, every round checked, the standings recounted from the games."""

import pytest

from benchmarks import tournament_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_small_swiss_of_computer_players_runs_to_the_end_and_recounts(settings):
    settings.BOT_MOVE_DELAY = 0
    report = tournament_run.run(7, 3, 2, withdrawing=1)
    assert report.recount_agrees
    assert [number for number, _, _ in report.made] == [1, 2, 3]
    assert report.withdrawn == 1
    # 7 players: 3 games and a bye in rounds 1 and 2; 6 left: 3 games in round 3.
    assert report.games == 9 and report.seats == 18
    assert "standings agree with the recount from the games" in report.lines()
