"""A private game the caller may not see answers exactly as a game that does not exist, on every
endpoint that names a game, in the API and on the site's pages (issue 34): no status, code or
word tells that it exists, or what state it is in."""

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.test import Client as DjangoClient
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from games.models import Game
from games.play import actions
from tests.conftest import without_request_echoes

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db

MISSING = 987654321

# Every API endpoint that names a game, with a body it takes (one the server validates).
API_ENDPOINTS = [
    ("get", "/games/{id}", None),
    ("get", "/games/{id}/events", None),
    ("get", "/games/{id}/replay", None),
    ("get", "/games/{id}/review", None),
    ("get", "/games/{id}/chat", None),
    ("post", "/games/{id}/chat", {"text": "hello"}),
    ("post", "/games/{id}/actions", {"version": None, "action": {"type": "confirm_draft"}}),
    ("post", "/games/{id}/queue", {"version": None, "tiles": []}),
    ("post", "/games/{id}/resign", None),
    ("post", "/games/{id}/expel", {"seat": 0}),
    ("post", "/games/{id}/join", None),
    ("post", "/games/{id}/leave", None),
    ("post", "/games/{id}/start", None),
    ("post", "/games/{id}/cancel", None),
    ("post", "/games/{id}/decline", None),
    ("post", "/games/{id}/invite", {"username": "chloe"}),
    ("post", "/games/{id}/rematch", None),
]
# Every page of the site that names a game and changes something, with what it posts.
SITE_POSTS = [
    ("games:act", {"type": "confirm_draft", "version": "1"}),
    ("games:queue", {"tiles": "", "version": "1"}),
    ("games:resign", {}),
    ("games:expel", {"seat": "0"}),
    ("games:join", {}),
    ("games:leave", {}),
    ("games:start", {}),
    ("games:cancel", {}),
    ("games:decline", {}),
    ("games:invite", {"username": "chloe"}),
    ("games:rematch", {}),
    ("games:dismiss_notices", {"version": "1"}),
    ("games:chat", {"text": "hello"}),
    ("games:chat_read", {"up_to": "1"}),
    ("games:chat_delete", {}),
    ("first_visit:guide_step", {"do": "skip"}),
]
SITE_GETS = [
    "games:game",
    "games:fragment",
    "games:log",
    "games:replay",
    "games:chat",
    "first_visit:guide",
]


@pytest.fixture
def hidden(players):
    """Private games in every state, none of which esme plays or is invited to: a table by
    invitation waiting for players, a game being played, an ended one."""
    ada, brian = players[:2]
    waiting = actions.create_game(
        creator=ada,
        player_count=3,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
    )
    playing = actions.create_game(
        creator=ada, player_count=2, time_per_move=timedelta(days=1), private=True
    )
    actions.join_game(game_id=playing.pk, user=brian)
    ended = actions.create_game(
        creator=ada, player_count=2, time_per_move=timedelta(days=1), private=True
    )
    actions.join_game(game_id=ended.pk, user=brian)
    actions.resign(game_id=ended.pk, user=brian)
    games = {"waiting": waiting, "playing": playing, "ended": ended}
    for game in games.values():
        game.refresh_from_db()
        assert game.private
    return games


def answer(client, method, path, body):
    response = client.get(path) if method == "get" else client.post(path, body)
    return response.status_code, response.json()


def test_every_api_endpoint_answers_a_hidden_game_as_a_missing_one(players, hidden, settings):
    settings.SEAT_CHANGE_RATE_LIMIT = settings.ACTION_RATE_LIMIT = "1000/m"
    outsider = Client(DjangoClient(), token_for(players[4], "play"))
    for method, path, body in API_ENDPOINTS:
        missing = answer(outsider, method, path.format(id=MISSING), body)
        assert missing[0] == 404, (path, missing)
        for state, game in hidden.items():
            seen = answer(outsider, method, path.format(id=game.pk), body)
            assert seen == missing, (path, state, seen)
    for game in hidden.values():  # nothing changed
        assert Game.objects.get(pk=game.pk).version == game.version


def test_the_list_above_is_every_api_endpoint_that_names_a_game():
    from games.api.site import api

    named = set()
    for prefix, router in api._routers:
        for path, operations in router.path_operations.items():
            if "{game_id}" in path:
                for operation in operations.operations:
                    for method in operation.methods:
                        named.add((method.lower(), (prefix + path).replace("{game_id}", "{id}")))
    assert named == {(method, path) for method, path, _ in API_ENDPOINTS}


def test_every_page_answers_a_hidden_game_as_a_missing_one(players, hidden):
    outsider = DjangoClient()
    outsider.force_login(players[4])

    def address(name, game_id):
        return reverse(name, args=[game_id, 1] if name == "games:chat_delete" else [game_id])

    for name, data in SITE_POSTS:
        missing = outsider.post(address(name, MISSING), data)
        assert missing.status_code == 404, (name, missing.status_code)
        for state, game in hidden.items():
            seen = outsider.post(address(name, game.pk), data)
            assert seen.status_code == 404, (name, state, seen.status_code)
            assert without_request_echoes(seen.content) == without_request_echoes(
                missing.content
            ), (
                name,
                state,
            )
            assert list(get_messages(seen.wsgi_request)) == [], (name, state)
    for name in SITE_GETS:
        for state, game in hidden.items():
            assert outsider.get(reverse(name, args=[game.pk])).status_code == 404, (name, state)
    for game in hidden.values():  # nothing changed
        assert Game.objects.get(pk=game.pk).version == game.version


def test_the_lists_above_are_every_page_that_names_a_game():
    def names(resolver, namespace=""):
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from names(pattern, inner)
            elif isinstance(pattern, URLPattern) and "game_id" in str(pattern.pattern):
                yield f"{namespace}{pattern.name}"

    listed = {name for name, _ in SITE_POSTS} | set(SITE_GETS)
    pages = {name for name in names(get_resolver()) if not name.startswith("api:")}
    assert pages == listed
