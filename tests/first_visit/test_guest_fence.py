"""A guest reaches their own games and little else: every URL pattern of the site and every
endpoint of the API, walked as a guest, is either on the guest's list (accounts/guests.py
GUEST_PAGES) or refused with 403 and the way to sign up; and where a guest could be reached by
others (invitations, profiles, the leaderboard, the table talk), they are left out."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts import privacy
from accounts.guests import GUEST_PAGES
from accounts.models import AccessToken, User
from games import chat, lobby
from games.history.archive import leaderboard
from games.models import Game
from games.play import actions
from games.play.errors import ActionRefused

pytestmark = pytest.mark.django_db

REFUSAL = "Sign up to do this"
SAMPLE = {"id": "1", "int": "1", "str": "x", "name": "somebody", "slug": "x", "path": "x"}


def routes(patterns=None, prefix="", namespace=""):
    """Every (address, URL name) of the site, with sample values in its parameters."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from routes(pattern.url_patterns, prefix + route, inner)
        elif isinstance(pattern, URLPattern):
            yield prefix + route, f"{namespace}{pattern.name}" if pattern.name else None


def sample_path(route: str) -> str | None:
    """The route with each <converter:name> filled in; None for a regular expression."""
    if route.startswith("^") or "(?P" in route:
        return None
    return "/" + re.sub(r"<(?:(\w+):)?\w+>", lambda m: SAMPLE.get(m.group(1) or "str", "1"), route)


@pytest.fixture
def guest_client():
    client = Client()
    response = client.post(reverse("first_visit:play_now"))
    assert response.status_code == 302
    return client, User.objects.get(is_guest=True)


def test_every_page_and_endpoint_is_on_the_guest_s_list_or_refused(guest_client):
    client, guest = guest_client
    walked = refused = 0
    for route, name in routes():
        path = sample_path(route)
        if path is None:
            # A regular expression's pattern: the admin's and allauth's few. The admin's whole
            # tree is no guest's; allauth's are checked by name below.
            assert not name or name not in GUEST_PAGES, name
            continue
        walked += 1
        # Leaving (logging out) removes the guest: tests/first_visit/test_guests.py has it.
        leaving = name in ("account_logout", "first_visit:leave")
        for method in ("get",) if leaving else ("get", "post"):
            response = getattr(client, method)(path)
            guest_refusal = response.status_code == 403 and (
                REFUSAL in response.content.decode() or path.startswith("/api/")
            )
            if name in GUEST_PAGES:
                assert not guest_refusal, f"{method} {path} ({name}) is a guest's, yet refused"
            else:
                assert guest_refusal, (
                    f"{method} {path} ({name}) answered a guest {response.status_code}"
                )
                refused += 1
        assert client.session.get("_auth_user_id") == str(guest.pk), f"{path} signed out"
    assert walked > 100 and refused > 150  # the walk did walk: the site has that many


def test_what_a_guest_may_open_works(guest_client):
    client, guest = guest_client
    game = Game.objects.get(seats__user=guest)
    assert client.get(reverse("games:game", args=[game.pk])).status_code == 200
    assert client.get(reverse("games:fragment", args=[game.pk])).status_code == 200
    assert client.get(reverse("home")).status_code == 200
    assert client.get(reverse("account_signup")).status_code == 200
    for refused in ("dashboard", "games:lobby", "accounts:settings", "accounts:api_tokens",
                    "games:create", "leaderboard"):  # fmt: skip
        response = client.get(reverse(refused))
        assert response.status_code == 403 and REFUSAL in response.content.decode(), refused


def test_nobody_invites_a_guest_or_sees_their_profile_or_rating(guest_client, make_player):
    _client, guest = guest_client
    ada = make_player("ada")
    assert not privacy.accepts_invitation_from(guest, ada)
    table = actions.create_game(creator=ada, player_count=3, time_per_move=timedelta(days=1))
    with pytest.raises(ActionRefused):
        actions.invite_player(game_id=table.pk, inviter=ada, username=guest.username)
    watcher = Client()
    watcher.force_login(ada)
    assert watcher.get(reverse("players:profile", args=[guest.username])).status_code == 404
    assert watcher.get(reverse("archive", args=[guest.username])).status_code == 404
    assert guest.pk not in set(leaderboard().values_list("user_id", flat=True))
    game = Game.objects.get(seats__user=guest)
    assert watcher.get(reverse("games:game", args=[game.pk])).status_code == 404  # private
    assert game.pk not in {watched.pk for watched in lobby.games_to_watch(ada)}


def test_a_guest_has_no_table_talk_and_no_token(guest_client):
    client, guest = guest_client
    game = Game.objects.get(seats__user=guest)
    seats = list(game.seats.all())
    assert not chat.may_write(game, guest, seats)
    response = client.post(reverse("games:chat", args=[game.pk]), {"text": "hello"})
    assert response.status_code == 403
    response = client.post(reverse("accounts:api_tokens"), {"name": "mine", "scope": "play"})
    assert response.status_code == 403
    assert not AccessToken.objects.filter(user=guest).exists()
