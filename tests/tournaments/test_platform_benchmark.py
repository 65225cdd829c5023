"""The short run of `python -m benchmarks tournament`: a whole Swiss of computer players on the
platform, every round checked, the standings recounted from the games."""

import pytest

from benchmarks import tournament_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_small_swiss_of_computer_players_runs_to_the_end_and_recounts(settings):
    settings.BOT_MOVE_DELAY = 0
    report = tournament_run.run(5, 3, 2, withdrawing=1)
    assert report.recount_agrees
    assert [number for number, _, _ in report.made] == [1, 2, 3]
    assert report.withdrawn == 1
    # 5 players: 2 games and a bye in rounds 1 and 2; 4 left: 2 games in round 3.
    assert report.games == 6 and report.seats == 12
    assert "standings agree with the recount from the games" in report.lines()
