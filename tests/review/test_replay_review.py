"""The replay shows the engine's review: its choice beside the draft shown, the value lost,
the chart, each player's accuracy, the biggest mistakes linked to their steps, hindsight's best
chips; in the reader's language; and says so while the review is not there yet."""

import re

import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse

from games.review.models import GameReview

pytestmark = pytest.mark.django_db(transaction=True)


def _replay(client, game, step=None, language=None):
    url = reverse("games:replay", args=[game.pk])
    if step is not None:
        url += f"?step={step}"
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode()


def _a_lost_draft(review):
    return max(review.drafts["drafts"], key=lambda d: d["loss"])


def test_the_replay_shows_the_review(client, finished_game):
    game = finished_game(2)
    review = GameReview.objects.get(game=game)
    worst = _a_lost_draft(review)
    assert worst["loss"] > 0  # easy players lose points somewhere

    html = _replay(client, game, step=worst["step"] + 1)

    assert "The engine&#x27;s review" in html or "The engine's review" in html
    # At the draft's step: the engine's choice beside the tile taken, and the value lost.
    here = re.search(r'id="engine-here".*?</p>', html, re.S).group(0)
    assert "the engine&#x27;s choice" in here or "the engine's choice" in here
    # Rounded as the page rounds it (half up): a loss of 5.25 is 5.3 there, 5.2 by Python's
    # format, which failed one run in a few (the seed of `finished_game` is drawn afresh).
    assert f"Value lost: {floatformat(worst['loss'], 1)}" in here
    # Each player's accuracy, as stored, rounded as the page rounds it (half up: Python's own
    # format rounds 76.5 to 76, which failed a CI run).
    for seat in review.drafts["seats"]:
        assert f'<span class="accuracy-figure">{floatformat(seat["accuracy"], 0)}</span>' in html
    # The chart: one line per player, its mistakes linked to their steps.
    assert html.count('class="expected-line') == 2
    for number in review.drafts["mistakes"]:
        draft = next(d for d in review.drafts["drafts"] if d["number"] == number)
        assert f'href="?step={draft["step"] + 1}"' in html
    # Hindsight's best chip on each player's board.
    assert html.count("the best chip") >= 2


def test_the_replay_says_the_review_is_pending_and_asks_again(client, finished_game):
    game = finished_game(2)
    GameReview.objects.filter(game=game).delete()

    html = _replay(client, game, step=3)

    assert "The engine is reviewing this game" in html
    assert 'hx-trigger="every 15s"' in html
    assert 'class="accuracy-figure"' not in html


@pytest.mark.parametrize(
    "language, words",
    [("fr", "précision"), ("de", "Genauigkeit"), ("es", "precisión")],
)
def test_the_review_is_drawn_in_the_readers_language(client, finished_game, language, words):
    game = finished_game(2)

    html = _replay(client, game, language=language)

    assert words in html
    assert "What is accuracy?" not in html
