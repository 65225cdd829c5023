"""Every HTTP endpoint against malformed, oversized and out-of-range input (hypothesis).

Whatever arrives, the answer is a page or a clear refusal (a 4xx, or for the plain forms of the
lobby a redirect back to the game with the reason), never a server error, and a request that
is refused changes nothing: no game's version, pool, boards, trays, events or invitations, and
no player's settings.
"""

import re
from datetime import timedelta
from urllib.parse import quote

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accounts.models import User
from games import chat
from games.models import ChatMessage, Game
from games.play import vacations
from games.play.forms import DURATIONS, TIME_PER_MOVE
from games.rules.actions import ACTION_TYPES

from .conftest import client_for, everything, state_of
from .junk import NASTY, big_text, ints, plain_text, value

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# Modest example counts keep the package fast; every example sends several requests.
FUZZ = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FEW = settings(FUZZ, max_examples=10)

# What a page may answer to junk: the page itself (the junk ignored or shown back as a form
# error), a redirect, or a clear refusal. (The rate limits are raised out of the way: no 429.)
PAGE_ANSWERS = {200, 301, 302, 400, 403, 404, 405}
REFUSALS = {400, 403, 404, 405, 409, 422}
NAMES = {"ada", "brian", "chloe", "dmitri", "esme"}

htmx_headers = st.one_of(
    st.just({}),
    st.fixed_dictionaries(
        {"HTTP_HX_REQUEST": st.just("true")},
        optional={
            "HTTP_HX_TARGET": st.one_of(st.just("archive"), plain_text),
            "HTTP_HX_CURRENT_URL": st.one_of(st.sampled_from(NASTY), plain_text),
            "HTTP_HX_TRIGGER": plain_text,
        },
    ),
)


def get_endpoints(world) -> list[tuple[str, list[str]]]:
    """Every page that answers GET, with the query parameters its view reads."""
    games = world.games
    return [
        ("/", []),
        (reverse("health"), []),
        (reverse("dashboard"), []),
        (reverse("games:lobby"), ["player_count", "rated"]),
        (reverse("games:create"), []),
        (reverse("games:join_by_link", args=[world.open_table.invite_token]), []),
        (reverse("games:join_by_link", args=[world.invitation_table.invite_token]), []),
        *[(reverse("games:game", args=[game.pk]), ["sel"]) for game in games],
        *[(reverse("games:fragment", args=[game.pk]), ["sel"]) for game in games],
        *[(reverse("games:replay", args=[game.pk]), ["step", "turn"]) for game in games],
        (reverse("games:mine"), []),
        (reverse("leaderboard"), ["page"]),
        (reverse("archive", args=["ada"]), ["result", "players", "opponent", "page"]),
        (reverse("players:profile", args=["ada"]), []),
        (reverse("accounts:settings"), []),
        (reverse("account_login"), ["next"]),
    ]


def assert_page_answer(response, what):
    assert response.status_code < 500, what
    assert response.status_code in PAGE_ANSWERS, (response.status_code, what)


@FEW
@given(data=st.data())
def test_every_page_answers_junk_in_its_query_with_a_page_or_a_4xx_and_changes_nothing(
    world_with_ended, data
):
    world = world_with_ended
    endpoints = get_endpoints(world)
    browsers = [client_for(), client_for(world.players[0]), client_for(world.players[4])]
    before = everything()
    browser = data.draw(st.sampled_from(browsers), label="browser")
    junk = data.draw(st.dictionaries(st.sampled_from(["x", "sel", "page"]), value), label="extra")
    for path, params in endpoints:
        query = {**junk, **{name: data.draw(value, label=name) for name in params}}
        headers = data.draw(htmx_headers, label="headers")
        response = browser.get(path, query, **headers)
        assert_page_answer(response, (path, query, headers))
    assert everything() == before


@FUZZ
@given(junk=value)
def test_junk_in_a_path_names_nothing(world_with_ended, junk):
    """Tokens and usernames in the path: a 404 (or the 400 of a bad unsubscribe link)."""
    browser = client_for(world_with_ended.players[4])
    before = everything()
    part = quote(junk, safe="")
    if not part or junk.lower() in NAMES:
        return
    for path in [
        f"/games/join/{part}/",
        f"/players/{part}/",
        f"/players/{part}/games/",
        f"/unsubscribe/{part}/",
    ]:
        assert browser.get(path).status_code in {400, 404}, path
        assert browser.post(path).status_code in {400, 404, 405}, path
    assert browser.post(f"/unsubscribe/{part}/undo/").status_code in {400, 404}
    assert everything() == before


@FEW
@given(number=st.integers(0, 2**200))
def test_a_game_number_that_names_no_game_is_a_404_everywhere(world, number):
    assume(number not in {game.pk for game in world.games})
    browser = client_for(world.players[0])
    before = everything()
    for view in ("game", "fragment", "replay"):
        assert (
            browser.get(f"/games/{number}/{'' if view == 'game' else view + '/'}").status_code
            == 404
        )
    response = browser.post(f"/games/{number}/act/", {"type": "clear", "version": 0})
    assert response.status_code in {302, 404}  # a plain form goes back with the reason
    response = browser.post(
        f"/games/{number}/act/", {"type": "clear", "version": 0}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 404
    for view in ("join", "leave", "start", "cancel", "invite", "resign", "expel"):
        response = browser.post(
            f"/games/{number}/{view}/", {"username": "brian", "seat": "1"}, follow=True
        )
        assert response.status_code == 404, view
    assert everything() == before


# --- the move endpoint ---------------------------------------------------------------------

ACTION_FIELDS = [
    "tile_id",
    "space",
    "rotation",
    "quarter_turns",
    "from_space",
    "to_space",
    "space_a",
    "space_b",
]
action_types = st.one_of(
    st.sampled_from(list(ACTION_TYPES)),
    st.sampled_from(["", "DRAFT", "draft ", "take_last", "seat", "delete", "__class__"]),
    value,
)
form_values = st.one_of(ints.map(str), value)


@FUZZ
@given(data=st.data())
def test_a_move_made_of_junk_is_refused_with_its_reason_and_changes_nothing(world, data):
    game = world.playing
    seated = [client_for(world.seat_user(game, number)) for number in (0, 1)]
    outsider, anonymous = client_for(world.players[4]), client_for()
    for _ in range(4):
        state = state_of(game)
        version = state["game"]["version"]
        fields = {
            "type": data.draw(action_types, label="type"),
            "version": data.draw(
                st.one_of(st.sampled_from([version, version - 1, version + 1]), ints), label="v"
            ),
        }
        for name in data.draw(st.sets(st.sampled_from([*ACTION_FIELDS, "seat", "user"]))):
            fields[name] = data.draw(form_values, label=name)
        who = data.draw(st.sampled_from(["seat 0", "seat 1", "outsider", "anonymous"]))
        browser = {"outsider": outsider, "anonymous": anonymous}.get(who) or seated[int(who[-1])]
        headers = {"HTTP_HX_REQUEST": "true"}
        page_version = data.draw(st.one_of(st.none(), st.just(str(version)), value), label="X-PV")
        if page_version is not None:  # the version the page shows, sent by live.js
            headers["HTTP_X_PAGE_VERSION"] = page_version
        response = browser.post(reverse("games:act", args=[game.pk]), fields, **headers)
        status = response.status_code
        after = state_of(game)
        if who == "anonymous":
            assert status == 302 and "/accounts/login/" in response.url
        elif who == "outsider":  # not a player (403), or a move malformed before that (4xx)
            assert status in {400, 403, 422}, (status, fields)
        else:
            assert status in {200} | REFUSALS, (status, fields)
        if status == 200:  # a legal move after all: exactly one event, the version moves on
            assert after["game"]["version"] == version + 1
            assert after["events"] == state["events"] + 1
            continue
        assert after == state, (who, fields, status)
        if status in {400, 403, 409, 422}:
            assert 'role="alert"' in response.content.decode(), (status, fields)


@FUZZ
@given(data=st.data())
def test_a_plain_form_post_of_junk_to_the_move_endpoint_changes_nothing(world, data):
    """Without htmx the endpoint answers with a redirect to the game (the reason in a
    message); junk must still change nothing."""
    game = world.playing
    browser = client_for(world.seat_user(game, data.draw(st.sampled_from([0, 1]))))
    state = state_of(game)
    fields = {"type": data.draw(action_types), "version": data.draw(form_values)}
    for name in data.draw(st.sets(st.sampled_from(ACTION_FIELDS))):
        fields[name] = data.draw(st.one_of(st.sampled_from(NASTY), big_text))
    response = browser.post(reverse("games:act", args=[game.pk]), fields)
    assert response.status_code in {302} | REFUSALS
    assert state_of(game) == state


@FUZZ
@given(data=st.data())
def test_table_talk_made_of_junk_is_kept_as_plain_text_or_refused_in_words(world, data):
    """The table talk: whatever is posted, a message is kept exactly as games/chat.py cleans it
    (and shown escaped: tests/social/test_chat.py) or refused in words; nothing of the game
    changes; a read mark takes only a number."""
    game = world.playing
    who = data.draw(st.sampled_from(["seat 0", "outsider", "anonymous"]))
    browser = {
        "seat 0": client_for(world.seat_user(game, 0)),
        "outsider": client_for(world.players[4]),
        "anonymous": client_for(),
    }[who]
    state = state_of(game)
    text = data.draw(st.one_of(value, st.sampled_from(NASTY), big_text), label="text")
    kept = ChatMessage.objects.count()
    response = browser.post(
        reverse("games:chat", args=[game.pk]), {"text": text}, HTTP_HX_REQUEST="true"
    )
    status = response.status_code
    if who == "anonymous":
        assert status == 302 and "/accounts/login/" in response.url
    elif who == "outsider":
        assert status == 403
    elif status == 200:
        assert ChatMessage.objects.latest("pk").text == chat.clean_text(text)
        kept += 1
    else:
        assert status == 422, status
        with pytest.raises(chat.BadText, match=re.escape(response.content.decode())):
            chat.clean_text(text)
    assert ChatMessage.objects.count() == kept
    up_to = data.draw(st.one_of(ints.map(str), value), label="up_to")
    read = browser.post(reverse("games:chat_read", args=[game.pk]), {"up_to": up_to})
    assert read.status_code in {204, 302, 400}, read.status_code
    assert state_of(game) == state


tile_lists = st.one_of(
    st.lists(st.integers(-3, 70), max_size=8).map(lambda tiles: ",".join(map(str, tiles))),
    value,
)


@FUZZ
@given(data=st.data())
def test_a_queued_draft_made_of_junk_is_refused_with_its_reason_and_changes_nothing(world, data):
    """The Drafting-ahead endpoint: whatever arrives, the game does not move, and nothing but
    the poster's own queue may change (and only when it is accepted)."""
    game = world.playing
    users = [world.seat_user(game, number) for number in (0, 1)]
    seated = [client_for(user) for user in users]
    outsider, anonymous = client_for(world.players[4]), client_for()
    for _ in range(3):
        state = state_of(game)
        version = state["game"]["version"]
        fields = {
            "tiles": data.draw(tile_lists, label="tiles"),
            "version": data.draw(
                st.one_of(st.sampled_from([version, version - 1]), form_values), label="v"
            ),
        }
        if data.draw(st.booleans(), label="with confirm"):
            fields["confirm"] = data.draw(form_values, label="confirm")
        who = data.draw(st.sampled_from(["seat 0", "seat 1", "outsider", "anonymous"]))
        browser = {"outsider": outsider, "anonymous": anonymous}.get(who) or seated[int(who[-1])]
        url = reverse("games:queue", args=[game.pk])
        response = browser.post(url, fields, HTTP_HX_REQUEST="true")
        status = response.status_code
        after = state_of(game)
        if who == "anonymous":
            assert status == 302 and "/accounts/login/" in response.url
        elif who == "outsider":
            assert status in {400, 403, 422}, (status, fields)
        else:
            assert status in {200} | REFUSALS, (status, fields)
        assert after["game"] == state["game"] and after["events"] == state["events"]
        changed = [seat for seat, was in zip(after["seats"], state["seats"], strict=True)
                   if seat != was]  # fmt: skip
        if status == 200:
            assert all(seat[0] == users[int(who[-1])].pk for seat in changed), changed
        else:
            assert changed == [], (who, fields, status)
        if status in {400, 403, 409, 422}:
            assert 'role="alert"' in response.content.decode(), (status, fields)


# --- the lobby's forms ---------------------------------------------------------------------


def refused_lobby_requests(world):
    """(who, view, game) triples that must all be refused, whatever else the form holds."""
    ada, brian, chloe, _, esme = world.players
    requests = []
    for game in (world.playing, world.ended, world.cancelled):  # not waiting: all refused
        for view in ("join", "leave", "start", "cancel", "invite"):
            requests += [(user, view, game) for user in (ada, esme)]
    requests += [
        (esme, "join", world.invitation_table),  # neither invited nor holding the link
        (chloe, "join", world.open_table),  # already seated
        (esme, "leave", world.open_table),  # no seat
        (chloe, "leave", world.open_table),  # the creator cancels instead
        (chloe, "start", world.open_table),  # one player is too few
        (esme, "start", world.invitation_table),  # not the creator
        (brian, "cancel", world.invitation_table),  # not the creator
        (esme, "invite", world.invitation_table),  # not seated
    ]
    return requests


@FEW
@given(data=st.data())
def test_refused_lobby_requests_with_junk_go_back_with_the_reason_and_change_nothing(
    world_with_ended, data
):
    world = world_with_ended
    requests = refused_lobby_requests(world)
    browsers = {user.pk: client_for(user) for user in world.players}
    before = everything()
    for _ in range(4):
        user, view, game = data.draw(st.sampled_from(requests), label="request")
        form = {
            "token": data.draw(st.one_of(value, st.just(world.open_table.invite_token))),
            "username": data.draw(value.filter(lambda name: name.strip().lower() not in NAMES)),
        }
        response = browsers[user.pk].post(
            reverse(f"games:{view}", args=[game.pk]), form, follow=True
        )
        # Back to the game page with the reason; a table by invitation that the player may not
        # see does not reveal itself: not found at once, as a missing one, without a word.
        if game == world.invitation_table and user.username in ("esme", "ada"):
            assert response.status_code == 404 and response.redirect_chain == []
        else:
            assert response.redirect_chain[-1][0] == reverse("games:game", args=[game.pk])
            assert response.status_code == 200, (view, game, form)
            assert 'class="message error"' in response.content.decode(), (view, game, form)
    assert everything() == before


@FUZZ
@given(data=st.data())
def test_join_by_link_with_a_made_up_token_is_a_404(world, data):
    token = data.draw(st.one_of(value, st.text(alphabet="abcdefABCDEF0123456789-_", min_size=24)))
    tokens = {game.invite_token for game in world.games}
    if token in tokens or not quote(token, safe=""):
        return
    browser = client_for(world.players[4])
    before = everything()
    path = f"/games/join/{quote(token, safe='')}/"
    assert browser.get(path).status_code == 404
    assert browser.post(path).status_code == 404
    assert everything() == before


# --- creating a game, the settings ---------------------------------------------------------

create_fields = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(value, st.just("A fine name")),
        "player_count": st.one_of(st.sampled_from(["2", "3", "5"]), value),
        "time_per_move": st.one_of(st.sampled_from(sorted(TIME_PER_MOVE)), value),
        "rated": st.one_of(st.just("on"), value),
        "access": st.one_of(st.sampled_from(["open", "invitation"]), value),
        "invitees": st.one_of(st.just("brian, chloe"), value),
        "easy_bots": st.one_of(st.sampled_from(["0", "1"]), value),
        "strong_bots": st.one_of(st.sampled_from(["0", "1"]), value),
        "clock": st.one_of(st.sampled_from(["per_move", "fischer"]), value),
        "fischer_bank": st.one_of(st.sampled_from(sorted(DURATIONS)), value),
        "fischer_increment": st.one_of(st.sampled_from(sorted(DURATIONS)), value),
        "fischer_cap": st.one_of(st.sampled_from(sorted(DURATIONS)), value),
        "finishing_time": st.one_of(st.sampled_from(["", *sorted(TIME_PER_MOVE)]), value),
        "weekends_off": value,
    },
)


@FUZZ
@given(form=create_fields, headers=htmx_headers)
def test_the_create_form_makes_only_games_within_the_rules_whatever_it_is_sent(
    world, form, headers
):
    ada = world.players[0]
    before = set(Game.objects.values_list("pk", flat=True))
    response = client_for(ada).post(reverse("games:create"), form, **headers)
    made = Game.objects.exclude(pk__in=before)
    if response.status_code == 200:  # the form again, with its errors
        assert not form or "errorlist" in response.content.decode()
        assert not made.exists()
        return
    assert response.status_code == 302, response.status_code
    [game] = made
    assert response.url == reverse("games:game", args=[game.pk])
    assert 2 <= game.player_count <= 5
    assert len(game.name) <= 60 and "\x00" not in game.name
    assert game.time_per_move in DURATIONS.values()
    if game.fischer:
        assert game.fischer_bank <= game.fischer_cap and game.fischer_increment <= game.fischer_cap
    assert game.finishing_time in (None, *TIME_PER_MOVE.values())
    assert game.access in Game.Access.values
    assert game.seats.filter(user=ada).exists()
    assert game.seats.count() <= game.player_count


@FEW
@given(
    form=st.fixed_dictionaries(
        {}, optional={"days": st.one_of(st.sampled_from(["0.5", "3", "30", "31"]), value)}
    ),
    end=st.booleans(),
)
def test_the_vacation_switch_takes_only_the_days_a_player_has(world, form, end):
    esme = world.players[4]
    if end:
        form = {**form, "end": "1"}
    response = client_for(esme).post(reverse("vacation"), form)
    assert response.status_code == 302
    esme = User.objects.get(pk=esme.pk)
    if esme.vacation_until is not None:
        assert not end
        assert esme.vacation_until - esme.vacation_started_at <= timedelta(days=30)
        assert esme.vacation_until > esme.vacation_started_at
        vacations.end_vacation(user_id=esme.pk)  # the next example starts at home


@FEW
@given(
    form=st.fixed_dictionaries(
        {},
        optional={
            "time_zone": st.one_of(st.sampled_from(["Europe/Paris", "UTC"]), value),
            "theme": st.one_of(st.sampled_from(["system", "dark"]), value),
            "colour_blind": value,
            "email_your_turn": value,
            "email_daily_digest": value,
        },
    )
)
def test_the_settings_form_saves_only_valid_settings(world, form):
    esme = world.players[4]
    browser = client_for(esme)
    before = User.objects.filter(pk=esme.pk).values().get()
    response = browser.post(reverse("accounts:settings"), form)
    after = User.objects.filter(pk=esme.pk).values().get()
    if response.status_code == 200:  # the form again, with its errors
        assert not form or "errorlist" in response.content.decode()
        assert after == before
    else:
        assert response.status_code == 302
        assert (after["time_zone"], after["theme"]) == (form.get("time_zone"), form.get("theme"))
        mine = ("email_", "colour", "time_", "theme")
        assert {k: v for k, v in after.items() if not k.startswith(mine)} == {
            k: v for k, v in before.items() if not k.startswith(mine)
        }


# --- the account forms (allauth) -----------------------------------------------------------


@FEW
@given(
    login=value,
    password=value,
    email=st.one_of(value, st.just("new@example.com")),
    username=value,
)
def test_the_account_forms_answer_junk_with_the_form_or_a_4xx(
    players, login, password, email, username
):
    """Log-in, sign-up and password reset (allauth): the form again with its errors, or the
    limit on attempts (429); never an account made of junk, nobody signed in."""
    browser = client_for()
    users = User.objects.count()
    for path, form in [
        (reverse("account_login"), {"login": login, "password": password}),
        (reverse("account_login"), {"login": "ada", "password": password}),
        (
            reverse("account_signup"),
            {"username": username, "email": email, "password1": password, "password2": password},
        ),
        (reverse("account_reset_password"), {"email": email}),
    ]:
        response = browser.post(path, form)
        assert response.status_code in {200, 302, 400, 429}, (path, response.status_code)
        if response.status_code == 302 and path == reverse("account_signup"):
            # The junk made a valid sign-up (e.g. "436", new@example.com and a long password):
            # then the account is exactly the one asked for, its address not yet confirmed.
            made = User.objects.filter(username__iexact=username).first()
            if made is None:
                # The address has an account already (an earlier example's: the examples share
                # the database): allauth answers as for a new one, so that nobody learns which
                # addresses have accounts, and makes none.
                assert User.objects.filter(email__iexact=email).exists()
                continue
            assert made.email == email
            assert not EmailAddress.objects.filter(user=made, verified=True).exists()
            users += 1
        elif response.status_code == 302:  # the reset's "sent" page, never a signed-in one
            assert path == reverse("account_reset_password"), path
    assert "_auth_user_id" not in browser.session
    assert User.objects.count() == users


# --- methods no page uses ------------------------------------------------------------------


def test_every_endpoint_answers_any_method_without_a_server_error_or_a_change(world_with_ended):
    """OPTIONS, PUT, PATCH and DELETE to every endpoint, GET and HEAD to the POST-only ones."""
    world = world_with_ended
    game = world.playing
    post_only = [
        reverse(f"games:{view}", args=[game.pk])
        for view in ("act", "queue", "join", "leave", "start", "cancel", "invite", "chat_read")
    ] + [reverse("accounts:unsubscribe_undo", args=["not-a-token"]), reverse("vacation")]
    paths = [path for path, _ in get_endpoints(world)] + post_only
    paths += [
        reverse("accounts:unsubscribe", args=["not-a-token"]),
        reverse("account_signup"),
        reverse("account_reset_password"),
    ]
    browser = client_for(world.seat_user(game, 0))
    before = everything()
    for path in paths:
        methods = ["options", "put", "patch", "delete"] + ["get", "head"] * (path in post_only)
        for method in methods:
            response = getattr(browser, method)(path, HTTP_HX_REQUEST="true")
            assert response.status_code in PAGE_ANSWERS, (method, path, response.status_code)
    assert everything() == before
