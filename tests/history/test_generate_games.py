"""The data-generating command (`python -m benchmarks generate`) makes real, replayable, rated
finished games."""

import pytest
from django.core.management import CommandError, call_command

from benchmarks.commands import generate
from games.history import replay as history
from games.models import Event, Game, Rating, RatingChange, Seat

pytestmark = pytest.mark.django_db


def test_generate_games_makes_finished_games_that_replay_to_their_results(capsys):
    call_command(generate.Command(), games=25, users=8, distinct=6, seed=5, unrated=0.2)
    assert "Created 25 games (25 finished" in capsys.readouterr().out

    games = list(Game.objects.order_by("ended_at"))
    assert len(games) == 25 and {game.status for game in games} == {Game.Status.ENDED}
    assert all(game.created_at <= game.started_at < game.ended_at for game in games)
    for game in games:
        numbers = list(game.events.order_by("number").values_list("number", flat=True))
        assert numbers == list(range(1, game.version + 1))
        final = history.ReplayPage(game).state_at(history.ReplayPage(game).last_step)
        assert final.is_terminal()
        seats = {seat.number: seat for seat in game.seats.all()}
        assert len(seats) == game.player_count
        for result in final.results():
            seat = seats[result.seat]
            assert (seat.score, seat.place, seat.chip_tiles, seat.chip_value) == (
                result.score,
                result.place,
                result.chip_tiles,
                result.chip_value,
            )
    rated = [game for game in games if game.rated]
    assert 0 < len(rated) < 25
    assert RatingChange.objects.count() == Seat.objects.filter(game__rated=True).count()
    assert Rating.objects.filter(user__username__startswith="sim").count() == Rating.objects.count()
    assert sum(r.games for r in Rating.objects.all()) == RatingChange.objects.count()
    assert Event.objects.filter(kind="started").count() == 25


def test_running_it_again_reuses_the_players_and_rerates_everything():
    call_command(generate.Command(), games=5, users=6, distinct=2, seed=1)
    call_command(generate.Command(), games=5, users=6, distinct=2, seed=2)
    assert Game.objects.count() == 10
    assert Seat.objects.values("user").distinct().count() <= 6
    assert RatingChange.objects.count() == Seat.objects.filter(game__rated=True).count()


def test_it_refuses_nonsense():
    with pytest.raises(CommandError):
        call_command(generate.Command(), games=0)
