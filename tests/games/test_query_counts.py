"""The queries an action or a page costs do not grow with the number of players."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import actions

from .playing import current_state

pytestmark = pytest.mark.django_db


def queries_of(call):
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


def costs(game):
    """Queries of: a draft, a placement, the game page, for the first player."""
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]
    client = Client()
    client.force_login(me)
    client.get(reverse("games:game", args=[game.pk]))  # warm the session
    return (
        queries_of(lambda: actions.draft_tile(game_id=game.pk, user=me, tile_id=tile)),
        queries_of(lambda: actions.place_tile(game_id=game.pk, user=me, tile_id=tile, space=12)),
        queries_of(lambda: client.get(reverse("games:game", args=[game.pk]))),
    )


def test_queries_per_action_and_per_page_are_bounded_and_do_not_grow_with_players(start_game):
    two = costs(start_game(2))
    five = costs(start_game(5))

    assert two == five, (two, five)
    draft, place, page = five
    assert draft <= 8
    assert place <= 8
    assert page <= 8
