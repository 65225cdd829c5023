"""The API returns a finished game's review: pending until the task has stored it, then every
draft judged, each seat's figures and hindsight; refused before the end; hidden where the game
is."""

import pytest
from django.test import Client as DjangoClient

from games.review.models import GameReview
from tests.api.helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(players):
    return Client(DjangoClient(), token_for(players[0], "read"))


def test_the_api_returns_the_review_of_a_finished_game(api, finished_game):
    game = finished_game(2)
    stored = GameReview.objects.get(game=game)

    answer = api.get(f"/games/{game.pk}/review")

    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["status"] == "done" and body["measure"] == "margin"
    assert body["game"]["id"] == game.pk
    assert body["drafts"] == stored.drafts["drafts"]
    assert [seat["accuracy"] for seat in body["seats"]] == [
        seat["accuracy"] for seat in stored.drafts["seats"]
    ]
    assert [h["best_score"] for h in body["hindsight"]] == [
        h["best_score"] for h in stored.hindsight
    ]
    # A draft's step indexes the replay's events: that event is the draft of its tile.
    events = api.get(f"/games/{game.pk}/replay").json()["events"]
    first = body["drafts"][0]
    assert events[first["step"]]["action"] == {"type": "draft", "tile_id": first["taken"]}


def test_the_review_is_pending_until_it_is_stored(api, finished_game):
    game = finished_game(2)
    GameReview.objects.filter(game=game).delete()

    body = api.get(f"/games/{game.pk}/review").json()

    assert body["status"] == "pending"
    assert body["drafts"] == [] and body["hindsight"] == []


def test_a_game_under_way_has_no_review_yet(api, start_game):
    game = start_game(2)

    answer = api.get(f"/games/{game.pk}/review")

    assert answer.status_code == 409
    assert answer.json()["code"] == "not_ended"
    assert api.get("/games/999999/review").status_code == 404
