"""Players who left a game (resigned, abandoned, expelled) are ranked after those who stayed,
in reverse order of leaving, sharing a place when they left in the same turn, and the game is
rated once with those places (games/history/ratings.py)."""

from datetime import timedelta

import pytest

from games import tasks
from games.history import ratings
from games.models import Game, Rating, RatingChange, Seat
from games.play import actions
from tests.games.playing import current_state, draft_the_top_tile
from tests.tasks.conftest import clock  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture(autouse=True)
def _no_analysis(lost_tasks):
    lost_tasks("games.analyse_game")


def seat_user(game, number):
    return game.seats.get(number=number).user


def places_rated(game) -> dict[int, int]:
    """The place each player was rated with, by seat number."""
    seat_of = dict(game.seats.values_list("user_id", "number"))
    return {seat_of[c.user_id]: c.place for c in RatingChange.objects.filter(game=game)}


def expected_ratings(game, places: dict[int, int]) -> list[ratings.Skill]:
    """What OpenSkill makes of the game with these places, everyone starting new."""
    skills = [ratings.INITIAL] * len(places)
    return ratings.rate(skills, [places[number] for number in sorted(places)])


def test_an_abandoned_and_a_resigned_player_come_last_and_the_game_is_rated_once(
    clock,  # noqa: F811 (the fixture)
    start_game,
    committed,
):
    game = start_game(3, time_per_move=HOUR, abandon_after_row=2, abandon_after_total=2)
    # Seat 0 lets its time run out twice: abandoned in its second turn.
    for _ in range(2):
        while current_state(game).current != 0:
            draft_the_top_tile(game, committed)
        clock.advance(HOUR + timedelta(seconds=1))
        committed(tasks.sweep)
    assert game.seats.get(number=0).left == Seat.Left.ABANDONED
    # Two turns later seat 1 resigns: seat 2 alone stays, and wins whatever the scores.
    draft_the_top_tile(game, committed)
    committed(actions.resign, game_id=game.pk, user=seat_user(game, 1))

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert places_rated(game) == {0: 3, 1: 2, 2: 1}
    assert dict(game.seats.values_list("number", "place")) == {0: 3, 1: 2, 2: 1}
    for number, skill in enumerate(expected_ratings(game, {0: 3, 1: 2, 2: 1})):
        rating = Rating.objects.get(user=seat_user(game, number))
        assert (rating.mu, rating.sigma, rating.games) == (
            pytest.approx(skill.mu),
            pytest.approx(skill.sigma),
            1,
        )
    # The ending processed again rates nothing more.
    assert ratings.atomic_rate_game(game.pk) == []
    assert RatingChange.objects.filter(game=game).count() == 3
    assert Rating.objects.get(user=seat_user(game, 2)).games == 1


def test_players_who_left_in_the_same_turn_share_their_place(start_game, committed):
    game = start_game(4)
    draft_the_top_tile(game, committed)
    # Seats 2 and 3 resign in turn 2 (seat 1's: their stand-ins have nothing to draft yet);
    # seat 0 in a later turn.
    committed(actions.resign, game_id=game.pk, user=seat_user(game, 2))
    committed(actions.resign, game_id=game.pk, user=seat_user(game, 3))
    assert current_state(game).left == (None, None, 2, 2)
    while current_state(game).drafts < 4:
        draft_the_top_tile(game, committed)
    committed(actions.resign, game_id=game.pk, user=seat_user(game, 0))

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED  # seat 1 alone stays
    places = {0: 2, 1: 1, 2: 3, 3: 3}
    assert places_rated(game) == places
    expected = expected_ratings(game, places)
    shared = [Rating.objects.get(user=seat_user(game, number)) for number in (2, 3)]
    assert [rating.mu for rating in shared] == [
        pytest.approx(expected[2].mu),
        pytest.approx(expected[3].mu),
    ]
    assert shared[0].mu == pytest.approx(shared[1].mu)  # a tie is a tie
