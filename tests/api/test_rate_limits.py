"""The API's rate limits count what was really attempted (issue 34): a request refused before it
could act (a game that does not exist or that the caller may not see, a body that does not
validate) costs nothing, so that a buggy client or a fuzzer does not lock its player out of the
site's own joins, leaves and seeks."""

from datetime import timedelta

import pytest
from django.test import Client as DjangoClient
from django.urls import reverse

from games.models import Game
from games.play import actions

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def seat_limit(settings):
    settings.SEAT_CHANGE_RATE_LIMIT = "5/10m"


def test_joins_of_games_that_do_not_exist_or_hide_cost_nothing(players, seat_limit):
    esme = players[4]
    hidden = actions.create_game(
        creator=players[0], player_count=2, access=Game.Access.INVITATION,
        time_per_move=timedelta(days=1),
    )  # fmt: skip
    api = Client(DjangoClient(), token_for(esme, "play"))
    for game_id in [987654321] * 10 + [hidden.pk] * 10:
        assert api.post(f"/games/{game_id}/join").status_code == 404

    table = actions.create_game(creator=players[1], player_count=3, time_per_move=timedelta(1))
    assert api.post(f"/games/{table.pk}/join").status_code == 200
    # The site's own seat changes, shared with the API, are not locked either.
    site = DjangoClient()
    site.force_login(esme)
    assert site.post(reverse("games:leave", args=[table.pk])).status_code == 302
    assert table.seats.filter(user=esme).count() == 0


def test_seeks_that_do_not_validate_cost_nothing(players, seat_limit):
    api = Client(DjangoClient(), token_for(players[0], "play"))
    for wanted in [{"player_count": 9}, {"time_per_move": "1y"}, {"rated": "yes"}] * 4:
        assert api.post("/seek", wanted).status_code == 422
    assert api.post("/seek", {"player_count": 2}).status_code == 200


def test_a_real_attempt_counts_refused_or_not(players, seat_limit):
    """A join that reaches the table counts, even one the table refuses (it is full): that is
    the limit's business."""
    table = actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(1))
    actions.join_game(game_id=table.pk, user=players[1])  # full: it starts
    api = Client(DjangoClient(), token_for(players[2], "play"))
    statuses = [api.post(f"/games/{table.pk}/join").status_code for _ in range(6)]
    assert statuses == [400] * 5 + [429]
