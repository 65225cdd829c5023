"""A Swiss of computer players from registration to the final standings, through the platform:
each round's games opened with the tournament's settings, played out by the bots (eager tasks),
each game's end moving the tournament on; the standings agree with a recount from the games."""

from collections import Counter
from fractions import Fraction

import pytest

from games.models import Game
from games.tournaments import actions, reading
from games.tournaments.models import Pairing, Round, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_a_swiss_of_computer_players_runs_to_the_end(open_tournament, bots, committed):
    tournament = open_tournament(table_size=3, rounds=3, min_players=4, rated=False)
    field = bots(7)
    for bot in field:
        actions.register(tournament_id=tournament.pk, user=bot)

    committed(actions.start, tournament_id=tournament.pk, by=tournament.created_by)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.round == 3
    games = list(Game.objects.filter(tournament_round__tournament=tournament))
    assert len(games) == 3 * 3  # 7 players: tables of 3 + 2 + 2
    assert all(game.status == Game.Status.ENDED for game in games)
    assert not any(game.rated for game in games)
    for made in Round.objects.filter(tournament=tournament):
        seated = Counter(made.pairings.values_list("user_id", flat=True))
        assert set(seated) == {bot.pk for bot in field}
        assert max(seated.values()) == 1
        sizes = sorted(g.player_count for g in Game.objects.filter(tournament_round=made))
        assert sizes == [2, 2, 3]
    # The recount: each player's points are their places' points, game by game.
    points = Counter()
    for game in games:
        seats = list(game.seats.order_by("number"))
        gained = tournament.points.points([seat.place for seat in seats])
        for seat, value in zip(seats, gained, strict=True):
            points[seat.user_id] += value
    final = {entry.user_id: entry.points_value for entry in tournament.entries.all()}
    assert final == {player: points[player] for player in final}
    read = reading.read(tournament)
    assert [row.standing.points for row in read.rows] == sorted(final.values(), reverse=True)
    assert all(entry.place is not None for entry in tournament.entries.all())
    assert Pairing.objects.filter(round__tournament=tournament, game__isnull=True).count() == 0
    assert sum(points.values()) > Fraction(0)
