"""Rounds through the platform with people's games: byes, withdrawals, abandons, tie-breaks
recounted from the games, a round robin's sections and crosstable."""

from collections import Counter
from fractions import Fraction

import pytest
from django.core import mail

from games.models import Game, Seat
from games.tournaments import actions, reading
from games.tournaments.models import Pairing, Round, Tournament
from tests.games.playing import play_to_the_end

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def playing(tournament, number=None):
    tournament.refresh_from_db()
    number = number or tournament.round
    return list(
        Game.objects.filter(
            tournament_round__tournament=tournament,
            tournament_round__number=number,
            status=Game.Status.PLAYING,
        ).order_by("pk")
    )


def play_round(tournament, committed):
    for game in playing(tournament):
        committed(play_to_the_end, game)


def seated(tournament, number):
    return Counter(
        Pairing.objects.filter(round__tournament=tournament, round__number=number).values_list(
            "user_id", flat=True
        )
    )


@pytest.fixture
def swiss(open_tournament, players, committed):
    def make(count, **options):
        tournament = open_tournament(table_size=2, rounds=3, rated=False, **options)
        for player in players[:count]:
            actions.register(tournament_id=tournament.pk, user=player)
        committed(actions.start, tournament_id=tournament.pk, by=tournament.created_by)
        tournament.refresh_from_db()
        return tournament

    return make


def test_a_withdrawn_player_is_not_paired_again_and_their_game_counts(swiss, players, committed):
    tournament = swiss(5)
    first = Round.objects.get(tournament=tournament, number=1)
    assert sorted(seated(tournament, 1).values()) == [1] * 5
    assert first.pairings.filter(game__isnull=True).count() == 1  # the bye
    leaving = playing(tournament)[0].seats.get(number=0).user

    committed(actions.withdraw, tournament_id=tournament.pk, user=leaving)
    play_round(tournament, committed)  # their game is played out all the same

    tournament.refresh_from_db()
    assert tournament.round == 2
    assert leaving.pk not in seated(tournament, 2)
    assert sorted(seated(tournament, 2).values()) == [1] * 4
    row = reading.read(tournament).row_of(leaving.pk)
    assert row.standing.withdrawn and row.standing.games == 1
    with pytest.raises(actions.ActionRefused):
        actions.withdraw(tournament_id=tournament.pk, user=leaving)

    play_round(tournament, committed)
    play_round(tournament, committed)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.entries.get(user=leaving).place is not None


def test_a_player_who_abandons_twice_is_not_paired_again(swiss, players, committed):
    tournament = swiss(4)
    play_round(tournament, committed)
    walker = players[0]
    Seat.objects.filter(game__tournament_round__number=1, user=walker).update(
        left=Seat.Left.ABANDONED
    )  # handed to the server for their timeouts, as leaving.py does
    games = playing(tournament)
    own = next(game for game in games if game.seats.filter(user=walker).exists())
    committed(play_to_the_end, own)
    Seat.objects.filter(game=own, user=walker).update(left=Seat.Left.ABANDONED)
    for game in games:
        if game != own:
            committed(play_to_the_end, game)

    tournament.refresh_from_db()
    assert tournament.round == 3
    assert walker.pk not in seated(tournament, 3)
    assert Pairing.objects.filter(round__number=3, game__isnull=True).count() == 1


def test_standings_and_tie_breaks_are_those_of_the_games(swiss, committed):
    tournament = swiss(5)
    for _ in range(3):
        play_round(tournament, committed)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    games = list(Game.objects.filter(tournament_round__tournament=tournament))
    points, score, results = Counter(), Counter(), []
    for game in games:
        seats = list(game.seats.order_by("number"))
        gained = tournament.points.points([seat.place for seat in seats])
        results.append([(seat.user_id, value) for seat, value in zip(seats, gained, strict=True)])
        for seat, value in zip(seats, gained, strict=True):
            points[seat.user_id] += value
            score[seat.user_id] += seat.score
    for user_id in Pairing.objects.filter(game__isnull=True).values_list("user_id", flat=True):
        points[user_id] += tournament.bye_value
    opponents = Counter()
    for table in results:
        for user_id, _ in table:
            others = [points[other] for other, _ in table if other != user_id]
            opponents[user_id] += sum(others, Fraction(0)) / len(others)

    rows = reading.read(tournament).rows
    for row in rows:
        player = row.entry.user_id
        assert row.standing.points == points[player]
        assert row.standing.opponents_points == opponents[player]
        assert row.standing.game_score == score[player]
        assert row.entry.place == row.standing.place
    keys = [(r.standing.points, r.standing.opponents_points, r.standing.game_score) for r in rows]
    assert keys == sorted(keys, reverse=True)
    places = [row.standing.place for row in rows]
    assert places[0] == 1 and places == sorted(places)
    assert sum(seated(tournament, 1).values()) == 5


def test_a_round_robin_creates_every_game_at_once(open_tournament, players, committed):
    tournament = open_tournament(
        format=Tournament.Format.ROUND_ROBIN, table_size=2, section_size=4, rounds=None
    )
    for player in players[:4]:
        committed(actions.register, tournament_id=tournament.pk, user=player)
    mail.outbox.clear()
    committed(actions.start, tournament_id=tournament.pk, by=tournament.created_by)

    games = list(Game.objects.filter(tournament_round__tournament=tournament))
    assert len(games) == 6  # everyone meets everyone once
    pairs = Counter(frozenset(game.seats.values_list("user_id", flat=True)) for game in games)
    assert len(pairs) == 6 and set(pairs.values()) == {1}
    # One email each, with all their games (not a "game started" for each).
    assert sorted(message.to[0] for message in mail.outbox) == sorted(p.email for p in players[:4])
    assert all(message.body.count("/games/") == 3 for message in mail.outbox)

    for game in games:
        committed(play_to_the_end, game)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    section = reading.read(tournament).sections[0]
    for row, cells in section.cells():
        assert sum(sum(cell) for cell in cells if cell) == row.standing.points


def test_a_rounds_deadline_starts_the_next_and_a_late_game_counts_when_it_ends(
    swiss, players, committed
):
    from datetime import timedelta

    from django.utils import timezone

    from games.tournaments import tasks

    tournament = swiss(4)
    late, *others = playing(tournament)
    for game in others:
        committed(play_to_the_end, game)
    tournament.refresh_from_db()
    assert tournament.round == 1  # a game of the round goes on
    assert tasks.due(timezone.now())["due"] == []

    Round.objects.filter(tournament=tournament, number=1).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    assert tasks.due(timezone.now())["due"] == [tournament.pk]
    committed(tasks.sweep)

    tournament.refresh_from_db()
    assert tournament.round == 2
    # The late game's players are paired too (they are still in), each once.
    assert sorted(seated(tournament, 2).values()) == [1] * 4
    committed(play_to_the_end, late)
    read = reading.read(tournament)
    rows = [read.row_of(seat.user_id) for seat in late.seats.all()]
    assert [row.standing.games for row in rows] == [1, 1]  # its game counts now
    assert sum(row.standing.points for row in rows) == 1  # a win and a loss, or ½ each


def test_entrants_hear_a_day_ahead_once(open_tournament, players, committed):
    from datetime import timedelta

    from django.utils import timezone

    from games.tournaments import tasks

    tournament = open_tournament(name="Soon cup")
    committed(actions.register, tournament_id=tournament.pk, user=players[0])
    mail.outbox.clear()
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=timezone.now() + timedelta(hours=3)
    )
    committed(tasks.sweep)
    committed(tasks.sweep)
    assert [message.subject for message in mail.outbox] == [
        "[Microchip Online] Soon cup starts soon"
    ]
