"""A round is made once, whole, whoever tries at once: two sweeps (two beats by mistake), the
sweep and a game's end, two games' ends. Each caller runs on its own thread and connection, as
on two workers (PostgreSQL when DATABASE_URL points at it, SQLite otherwise)."""

from collections import Counter

import pytest
from django.utils import timezone

from games.models import Game
from games.tournaments import actions, tasks
from games.tournaments.models import Pairing, Round, Tournament
from tests.games.playing import play_to_the_end
from tests.games.test_races import race

pytestmark = pytest.mark.django_db(transaction=True)


def no_errors(outcomes):
    errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert not errors, errors


def assert_whole_rounds(tournament, players):
    for made in Round.objects.filter(tournament=tournament):
        seated = Counter(made.pairings.values_list("user_id", flat=True))
        assert set(seated) == {player.pk for player in players}, made.number
        assert set(seated.values()) == {1}, made.number
        games = Game.objects.filter(tournament_round=made)
        assert sum(game.player_count for game in games) == len(players) - (
            made.pairings.filter(game__isnull=True).count()
        )


def test_two_sweeps_at_the_start_time_make_one_first_round(open_tournament, players):
    tournament = open_tournament(table_size=2, rounds=2, rated=False)
    for player in players:
        actions.register(tournament_id=tournament.pk, user=player)
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())

    outcomes = race(tasks.sweep, tasks.sweep, tasks.sweep)

    no_errors(outcomes)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert Round.objects.filter(tournament=tournament).count() == 1
    assert_whole_rounds(tournament, players)
    assert Game.objects.filter(tournament_round__tournament=tournament).count() == 2


def test_a_round_is_paired_once_when_its_last_games_end_at_once(
    open_tournament, players, lost_tasks
):
    lost = lost_tasks("tournaments.game_ended", "games.analyse_game")
    tournament = open_tournament(table_size=2, rounds=2, rated=False)
    for player in players[:4]:
        actions.register(tournament_id=tournament.pk, user=player)
    actions.start(tournament_id=tournament.pk, by=tournament.created_by)
    games = list(Game.objects.filter(tournament_round__tournament=tournament))
    for game in games:
        play_to_the_end(game)
    assert len([task for task in lost if task.name == "tournaments.game_ended"]) == 2

    # Both games' ends and two sweeps, all at once, on the round's end.
    outcomes = race(
        lambda: actions.game_ended(game_id=games[0].pk),
        lambda: actions.game_ended(game_id=games[1].pk),
        tasks.sweep,
        tasks.sweep,
    )

    no_errors(outcomes)
    assert outcomes[:2].count("paired") <= 1  # or a sweep made it: once all the same
    tournament.refresh_from_db()
    assert tournament.round == 2
    assert Round.objects.filter(tournament=tournament).count() == 2
    assert_whole_rounds(tournament, players[:4])
    assert Pairing.objects.filter(round__number=2).count() == 4
