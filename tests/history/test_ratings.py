"""Ratings: OpenSkill Plackett-Luce, applied once in the transaction that ends a rated game."""

import itertools

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.history import ratings
from games.models import Game, Rating, RatingChange
from games.play import applying
from games.state_store import load_state

from .playing import play_recorded

pytestmark = pytest.mark.django_db


def rating(user):
    return Rating.objects.get(user=user)


def test_ratings_after_a_known_sequence_of_games_match_the_librarys_own_computation(
    players, ended_game
):
    ada, brian, chloe, dmitri, esme = players
    sequence = [  # (player, place) in seat order; equal places are shared
        [(ada, 1), (brian, 2)],
        [(chloe, 1), (ada, 2), (dmitri, 3)],
        [(esme, 1), (dmitri, 2), (brian, 3), (ada, 4), (chloe, 5)],
        [(brian, 1), (chloe, 1), (ada, 3)],  # a tie for first
        [(dmitri, 1), (esme, 2), (ada, 2), (brian, 4)],  # a tie for second
        [(ada, 1), (esme, 1)],  # a drawn two-player game
    ]
    model = PlackettLuce()
    expected = {player.pk: model.rating() for player in players}
    for results in sequence:
        game = ended_game([(player, place, 0, 0, 0) for player, place in results])
        ratings.atomic_rate_game(game.pk)
        teams = [[expected[player.pk]] for player, _ in results]
        rated = model.rate(teams, ranks=[place for _, place in results])
        for (player, _), team in zip(results, rated, strict=True):
            expected[player.pk] = team[0]

    played = {player.pk: 0 for player in players}
    for results in sequence:
        for player, _ in results:
            played[player.pk] += 1
    for player in players:
        mine = rating(player)
        assert mine.mu == pytest.approx(expected[player.pk].mu, abs=1e-9)
        assert mine.sigma == pytest.approx(expected[player.pk].sigma, abs=1e-9)
        assert mine.games == played[player.pk]
        assert mine.display == round(1000 + 40 * (mine.mu - 3 * mine.sigma))
    # every change is stored, in order, and chains from each rating to the next
    history = list(RatingChange.objects.filter(user=ada).order_by("created_at"))
    assert len(history) == 6
    assert history[0].mu_before == pytest.approx(model.mu)
    for before, after in itertools.pairwise(history):
        assert (after.mu_before, after.sigma_before) == (before.mu, before.sigma)
        assert after.display_before == before.display
    assert [change.games for change in history] == [1, 2, 3, 4, 5, 6]


def test_shared_places_are_ties(players, ended_game):
    ada, brian, chloe = players[:3]
    game = ended_game([(ada, 1, 10, 4, 12), (brian, 1, 10, 4, 12), (chloe, 3, 2, 1, 3)])
    ratings.atomic_rate_game(game.pk)

    tied = [rating(ada), rating(brian)]
    assert tied[0].mu == pytest.approx(tied[1].mu) and tied[0].sigma == pytest.approx(tied[1].sigma)
    assert rating(chloe).mu < tied[0].mu
    skills = ratings.rate([ratings.INITIAL] * 3, [1, 1, 3])
    assert skills[0].mu == pytest.approx(tied[0].mu)

    # a draw between two players who start equal leaves their skills equal, sigma smaller
    game = ended_game([(players[3], 1, 5, 2, 5), (players[4], 1, 5, 2, 5)])
    ratings.atomic_rate_game(game.pk)
    d, e = rating(players[3]), rating(players[4])
    assert d.mu == pytest.approx(e.mu) == pytest.approx(ratings.INITIAL.mu)
    assert d.sigma < ratings.INITIAL.sigma


def test_a_game_ending_through_the_actions_is_rated_inside_the_ending(start_game):
    game = start_game(3)
    play_recorded(game)
    game.refresh_from_db()

    seats = list(game.seats.order_by("number"))
    changes = RatingChange.objects.filter(game=game).order_by("user_id")
    assert [change.user_id for change in changes] == sorted(seat.user_id for seat in seats)
    expected = ratings.rate([ratings.INITIAL] * 3, [seat.place for seat in seats])
    for seat, skill in zip(seats, expected, strict=True):
        mine = rating(seat.user)
        assert (mine.mu, mine.sigma, mine.games) == (pytest.approx(skill.mu),
                                                     pytest.approx(skill.sigma), 1)  # fmt: skip
        change = changes.get(user=seat.user)
        assert change.place == seat.place and change.created_at == game.ended_at


def test_a_double_processed_ending_rates_once(start_game):
    game = start_game(2)
    play_recorded(game)
    game.refresh_from_db()
    before = {r.user_id: (r.mu, r.sigma, r.display, r.games) for r in Rating.objects.all()}
    assert len(before) == 2 and RatingChange.objects.filter(game=game).count() == 2

    # The ending runs again (a retried task, a repeated deadline): inside a transaction with
    # the game locked, exactly as games/play/applying.py ends a game.
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        seats = list(locked.seats.select_related("user").order_by("number"))
        applying._end(locked, seats, load_state(locked, seats), timezone.now())
    assert ratings.atomic_rate_game(game.pk) == []

    after = {r.user_id: (r.mu, r.sigma, r.display, r.games) for r in Rating.objects.all()}
    assert after == before
    assert RatingChange.objects.filter(game=game).count() == 2

    # and the database itself refuses a second change for the same game and player
    change = RatingChange.objects.filter(game=game).first()
    change.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        change.save()


def test_unrated_games_leave_ratings_alone(start_game, players, ended_game):
    game = ended_game([(players[0], 1, 3, 2, 5), (players[1], 2, 1, 1, 3)])
    ratings.atomic_rate_game(game.pk)
    before = {r.user_id: (r.mu, r.sigma, r.games) for r in Rating.objects.all()}

    played = start_game(2, rated=False)
    play_recorded(played)
    played.refresh_from_db()
    assert played.status == Game.Status.ENDED
    assert not RatingChange.objects.filter(game=played).exists()
    assert {r.user_id: (r.mu, r.sigma, r.games) for r in Rating.objects.all()} == before

    unrated = ended_game([(players[2], 1, 3, 2, 5), (players[3], 2, 1, 1, 3)], rated=False)
    assert ratings.atomic_rate_game(unrated.pk) == []
    assert not Rating.objects.filter(user__in=players[2:4]).exists()


def test_a_game_that_has_not_ended_is_not_rated(players, ended_game):
    game = ended_game([(players[0], None, None, None, None), (players[1], None, None, None, None)],
                      status=Game.Status.PLAYING)  # fmt: skip
    assert ratings.atomic_rate_game(game.pk) == []
    assert not Rating.objects.exists()


def test_rerating_everything_from_scratch_gives_the_ratings_made_game_by_game(players, ended_game):
    for results in (
        [(players[0], 1), (players[1], 2), (players[2], 2)],
        [(players[1], 1), (players[3], 2)],
        [(players[2], 1), (players[0], 2), (players[4], 3), (players[3], 3)],
    ):
        game = ended_game([(player, place, 0, 0, 0) for player, place in results])
        ratings.atomic_rate_game(game.pk)
    ended_game([(players[0], 2, 0, 0, 0), (players[4], 1, 0, 0, 0)], rated=False)
    live = {r.user_id: (r.mu, r.sigma, r.display, r.games) for r in Rating.objects.all()}
    live_changes = sorted(RatingChange.objects.values_list("game_id", "user_id", "display"))

    assert ratings.rerate_all() == 3
    again = {r.user_id: (r.mu, r.sigma, r.display, r.games) for r in Rating.objects.all()}
    assert again.keys() == live.keys()
    for user_id, (mu, sigma, display, games) in live.items():
        assert again[user_id][0] == pytest.approx(mu) and again[user_id][1] == pytest.approx(sigma)
        assert again[user_id][2:] == (display, games)
    assert sorted(RatingChange.objects.values_list("game_id", "user_id", "display")) == live_changes


def test_new_players_are_provisional_until_five_rated_games(players, ended_game):
    for number in range(5):
        assert (
            Rating.objects.filter(user=players[0]).first() is None or rating(players[0]).provisional
        )
        game = ended_game([(players[0], 1, 0, 0, 0), (players[1 + number % 4], 2, 0, 0, 0)])
        ratings.atomic_rate_game(game.pk)
    assert not rating(players[0]).provisional
    assert rating(players[2]).provisional
