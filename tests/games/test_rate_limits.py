"""Rate limits on moves, new games and invitations: per signed-in player, 429 past the limit.

The suite runs with the production limits (nothing in the test settings changes them); each test
here lowers one limit for itself, to reach it in a few requests.
"""

import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from games import rules
from games.models import Game, Invitation
from games.play import actions
from infra.services import free_port
from tests.conftest import settings_in_a_new_process

from .playing import current_state

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
START = datetime(2030, 3, 4, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock():
    """A stopped clock, moved on by hand: the limits' windows end when the test says."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def act(client, game, action: rules.Action, **extra):
    game.refresh_from_db()
    data = {**action.to_json(), "version": game.version}
    return client.post(reverse("games:act", args=[game.pk]), data, **extra)


def turn_of(game):
    """The user whose turn it is, and the other seated users."""
    state = current_state(game)
    seats = {seat.number: seat.user for seat in game.seats.select_related("user")}
    return seats[state.current], [user for n, user in seats.items() if n != state.current]


def draft_any(game) -> rules.Action:
    """A legal draft for the player whose turn it is."""
    state = current_state(game)
    drafts = [a for a in state.legal_actions(state.current) if isinstance(a, rules.Draft)]
    assert drafts, "the game should start with a draft"
    return drafts[0]


# --- moves (POST games/<id>/act/) --------------------------------------------------------------


def test_the_move_past_the_limit_gets_429_and_changes_nothing(start_game, settings, clock):
    settings.ACTION_RATE_LIMIT = "3/m"
    game = start_game(2)
    mover, _ = turn_of(game)
    client = client_for(mover)
    draft = draft_any(game)

    # Three moves in the minute are played: draft, undo, draft again.
    for action in (draft, rules.UndoDraft(), draft):
        response = act(client, game, action, **HTMX)
        assert response.status_code == 200, response.content.decode()[:300]
    game.refresh_from_db()
    version, state = game.version, current_state(game).to_json()

    response = act(client, game, rules.ConfirmDraft(), **HTMX)

    assert response.status_code == 429
    body = response.content.decode()
    assert "Too many moves in a short time (at most 3 a minute)" in body
    assert "Try again in" in body and "nothing was changed" in body
    assert 'id="game"' not in body  # the game area is left as it is on the page...
    assert response["HX-Retarget"] == "#live-notice"  # ...and the reason shown in the notice line
    assert response["HX-Reswap"] == "innerHTML"
    assert 1 <= int(response["Retry-After"]) <= 60
    game.refresh_from_db()
    assert game.version == version
    assert current_state(game).to_json() == state  # the draft is still pending, not confirmed


def test_the_limit_counts_every_post_even_refused_ones_and_never_says_500(
    start_game, settings, clock
):
    settings.ACTION_RATE_LIMIT = "2/m"
    game = start_game(2)
    mover, _ = turn_of(game)
    client = client_for(mover)
    stale = {"type": "confirm_draft", "version": 0}
    for _ in range(2):  # refused (the page was out of date), but counted
        response = client.post(reverse("games:act", args=[game.pk]), stale, **HTMX)
        assert response.status_code in (409, 422)
    assert act(client, game, draft_any(game), **HTMX).status_code == 429
    garbage = {"type": "nonsense", "version": "x" * 50}
    assert client.post(reverse("games:act", args=[game.pk]), garbage, **HTMX).status_code == 429


def test_another_player_is_not_affected_and_has_a_counter_of_their_own(start_game, settings, clock):
    settings.ACTION_RATE_LIMIT = "2/m"
    game = start_game(2)
    mover, (other,) = turn_of(game)
    mover_client, other_client = client_for(mover), client_for(other)
    draft = draft_any(game)
    assert act(mover_client, game, draft, **HTMX).status_code == 200
    assert act(mover_client, game, rules.UndoDraft(), **HTMX).status_code == 200
    assert act(mover_client, game, draft, **HTMX).status_code == 429

    # The other player's requests reach the game (refused: it is not their turn), twice...
    for _ in range(2):
        response = act(other_client, game, rules.ConfirmDraft(), **HTMX)
        assert response.status_code == 422, response.content.decode()[:300]
        assert "turn" in response.content.decode()
    # ...and then they are over their own limit.
    assert act(other_client, game, rules.ConfirmDraft(), **HTMX).status_code == 429


def test_the_limit_resets_when_its_window_ends(start_game, settings, clock):
    settings.ACTION_RATE_LIMIT = "1/m"
    game = start_game(2)
    mover, _ = turn_of(game)
    client = client_for(mover)
    draft = draft_any(game)
    assert act(client, game, draft, **HTMX).status_code == 200
    blocked = act(client, game, rules.ConfirmDraft(), **HTMX)
    assert blocked.status_code == 429

    clock.shift(int(blocked["Retry-After"]))

    version = Game.objects.get(pk=game.pk).version
    assert act(client, game, rules.ConfirmDraft(), **HTMX).status_code == 200
    assert Game.objects.get(pk=game.pk).version > version
    assert act(client, game, rules.ConfirmDraft(), **HTMX).status_code == 429  # 1 a minute again


def test_a_move_posted_without_htmx_gets_a_429_page_that_says_when_to_try_again(
    start_game, settings, clock
):
    settings.ACTION_RATE_LIMIT = "1/h"
    game = start_game(2)
    mover, _ = turn_of(game)
    client = client_for(mover)
    assert act(client, game, draft_any(game)).status_code == 302  # played, back to the page
    version = Game.objects.get(pk=game.pk).version

    response = act(client, game, rules.ConfirmDraft())

    assert response.status_code == 429
    assert response.templates[0].name == "429.html"
    body = response.content.decode()
    assert "Too many moves in a short time (at most 1 an hour)" in body
    wait = int(response["Retry-After"])
    assert 1 <= wait <= 3600
    assert "Try again in " in body
    assert reverse("games:game", args=[game.pk]) in body  # a way back to the game
    assert Game.objects.get(pk=game.pk).version == version


@pytest.mark.django_db(transaction=True)
def test_bots_are_never_counted_they_move_through_games_actions(players, settings):
    """Even with every move over HTTP refused, a game of bots plays to the end by itself."""
    settings.ACTION_RATE_LIMIT = "0/h"
    settings.BOT_MOVE_DELAY = 0
    from accounts.bots import new_bot

    creator = new_bot("easy")
    game = actions.create_game(
        creator=creator, player_count=2, time_per_move=timedelta(days=1), bots=("easy",)
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED

    # The same limit does stop a person's move over HTTP.
    human_game = actions.create_game(
        creator=players[0], player_count=2, time_per_move=timedelta(days=1)
    )
    actions.join_game(game_id=human_game.pk, user=players[1])
    mover, _ = turn_of(human_game)
    assert act(client_for(mover), human_game, draft_any(human_game), **HTMX).status_code == 429


def test_when_the_cache_cannot_count_moves_go_through(start_game, settings, caplog):
    """Play goes on without Redis: an uncounted move is better than a refused one."""
    game = start_game(2)
    mover, _ = turn_of(game)
    client = client_for(mover)
    settings.ACTION_RATE_LIMIT = "1/h"
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        }
    }
    for action in (draft_any(game), rules.UndoDraft()):
        response = act(client, game, action, **HTMX)
        assert response.status_code == 200, response.content.decode()[:300]
    assert "rate limit games.act not counted: the cache failed" in caplog.text


def test_an_act_by_someone_signed_out_is_sent_to_log_in_not_counted(start_game, settings):
    settings.ACTION_RATE_LIMIT = "0/h"
    game = start_game(2)
    response = Client().post(reverse("games:act", args=[game.pk]), {"type": "draft"})
    assert response.status_code == 302
    assert reverse("account_login") in response.url


# --- new games (POST games/new/) ---------------------------------------------------------------


def new_game_form(name):
    return {
        "name": name,
        "player_count": 3,
        "time_per_move": "1d",
        "rated": "on",
        "access": "open",
    }


def test_creating_games_past_the_limit_gets_429_and_creates_nothing(players, settings, clock):
    settings.GAME_CREATE_RATE_LIMIT = "2/h"
    ada, brian = client_for(players[0]), client_for(players[1])
    for _ in range(3):  # showing the form is not counted
        assert ada.get(reverse("games:create")).status_code == 200
    for name in ("First", "Second"):
        assert ada.post(reverse("games:create"), new_game_form(name)).status_code == 302

    response = ada.post(reverse("games:create"), new_game_form("Third"))

    assert response.status_code == 429
    body = response.content.decode()
    assert "Too many new games in a short time (at most 2 an hour)" in body
    assert "Try again in " in body
    wait = int(response["Retry-After"])
    assert 1 <= wait <= 3600
    assert list(Game.objects.order_by("pk").values_list("name", flat=True)) == ["First", "Second"]

    # Brian has his own counter.
    assert brian.post(reverse("games:create"), new_game_form("Brian's")).status_code == 302
    # When Ada's window ends she may create again.
    clock.shift(wait)
    assert ada.post(reverse("games:create"), new_game_form("Third")).status_code == 302
    assert Game.objects.filter(name="Third").exists()


# --- invitations (POST games/<id>/invite/) -----------------------------------------------------


def test_inviting_past_the_limit_gets_429_and_invites_nobody(players, settings, clock):
    settings.INVITE_RATE_LIMIT = "2/h"
    ada_user, brian_user, _chloe, dmitri, esme = players
    game = actions.create_game(
        creator=ada_user,
        player_count=5,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
    )
    actions.join_game(game_id=game.pk, user=brian_user)
    ada, brian = client_for(ada_user), client_for(brian_user)
    invite_url = reverse("games:invite", args=[game.pk])

    assert ada.post(invite_url, {"username": "chloe"}).status_code == 302
    assert ada.post(invite_url, {"username": "nobody-of-that-name"}).status_code == 302  # counted
    response = ada.post(invite_url, {"username": "dmitri"})

    assert response.status_code == 429
    body = response.content.decode()
    assert "Too many invitations in a short time (at most 2 an hour)" in body
    assert reverse("games:game", args=[game.pk]) in body
    assert 1 <= int(response["Retry-After"]) <= 3600
    invited = set(Invitation.objects.filter(game=game).values_list("user__username", flat=True))
    assert invited == {"brian", "chloe"}

    # Brian, at the same table, is not held back by Ada's count.
    assert brian.post(invite_url, {"username": "dmitri"}).status_code == 302
    assert Invitation.objects.filter(game=game, user=dmitri).exists()
    assert not Invitation.objects.filter(game=game, user=esme).exists()


# --- settings ----------------------------------------------------------------------------------


def test_the_suite_runs_with_the_production_limits():
    assert django_settings.ACTION_RATE_LIMIT == "240/m"
    assert django_settings.GAME_CREATE_RATE_LIMIT == "20/h"
    assert django_settings.INVITE_RATE_LIMIT == "60/h"


PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps([settings.ACTION_RATE_LIMIT, settings.GAME_CREATE_RATE_LIMIT,
                  settings.INVITE_RATE_LIMIT]))
"""


def read_limits(tmp_path, **environment):
    return settings_in_a_new_process(PROBE, tmp_path, **environment)


def test_the_limits_come_from_the_environment_and_a_bad_one_stops_the_start(tmp_path):
    result = read_limits(
        tmp_path, ACTION_RATE_LIMIT="600/m", GAME_CREATE_RATE_LIMIT="5/d", INVITE_RATE_LIMIT="10/5m"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["600/m", "5/d", "10/5m"]

    result = read_limits(tmp_path, ACTION_RATE_LIMIT="lots")
    assert result.returncode != 0
    assert "ACTION_RATE_LIMIT='lots' is not a rate limit like '240/m'" in result.stderr


# --- new games count only when made; seat changes (issue 20) -------------------------------------


def test_forms_sent_back_with_errors_do_not_count_toward_new_games(players, settings, clock):
    settings.GAME_CREATE_RATE_LIMIT = "2/h"
    client = client_for(players[0])
    bad = {"name": "x", "player_count": 9, "time_per_move": "1d", "access": "open"}
    for _ in range(6):  # each refused by the form, nothing made
        response = client.post(reverse("games:create"), bad)
        assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    good = {**bad, "player_count": 2}
    for _ in range(2):
        assert client.post(reverse("games:create"), good).status_code == 302
    third = client.post(reverse("games:create"), good)
    assert third.status_code == 429
    assert Game.objects.count() == 2


def test_joining_and_leaving_a_table_over_and_over_is_limited(players, settings, clock):
    settings.SEAT_CHANGE_RATE_LIMIT = "6/m"
    game = actions.create_game(creator=players[0], player_count=3, time_per_move=timedelta(days=1))
    client = client_for(players[1])
    answers = []
    for _ in range(5):
        answers.append(client.post(reverse("games:join", args=[game.pk])).status_code)
        answers.append(client.post(reverse("games:leave", args=[game.pk])).status_code)
    assert answers[:6] == [302] * 6 and set(answers[6:]) == {429}
    events = game.events.count()
    assert events == 1 + 6  # created, then three joins and three leaves: nothing after the limit
    clock.shift(timedelta(minutes=1))  # the window ends: the player may sit down again
    assert client.post(reverse("games:join", args=[game.pk])).status_code == 302
    assert game.seats.filter(user=players[1]).exists()
