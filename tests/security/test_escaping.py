"""Markup in names is shown as text, everywhere it is shown.

Sign-up refuses usernames with markup; players made another way (directly in the database) and
games named with markup are then drawn on every page, fragment, email and websocket push that
shows them, and each must carry the escaped text and never the raw tag.
"""

import pytest
from allauth.account.models import EmailAddress
from asgiref.sync import sync_to_async
from django.core import mail
from django.urls import reverse
from django.utils.html import escape

from accounts import unsubscribe
from accounts.models import User
from games import rules
from games.models import Game, Rating
from games.notices import notice
from games.play import actions
from games.play.forms import TIME_PER_MOVE
from infra import outbox
from infra.models import OutboxEmail
from tests.live.conftest import connect, game_path, login, messages, next_of

from .conftest import client_for, ended_game

USERNAMES = ['<script>alert("u1")', '"><img src=x onerror=alert(2)>']
TITLES = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>']
# What must never reach a page as markup: the start of either injected element.
RAW = ["<script>alert", "<img src=x"]
DAY = TIME_PER_MOVE["1d"]


def assert_escaped(html: str, *texts: str, where=""):
    """`html` shows each of `texts` as text, and none of the injected elements as markup."""
    for raw in RAW:
        assert raw not in html, f"raw markup in {where}"
    for text in texts:
        assert escape(text) in html, f"{text!r} not shown (escaped) in {where}"


def make_person(username, email):
    user = User.objects.create_user(username, email, "a-long-Passphrase-42")
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


@pytest.mark.django_db
@pytest.mark.parametrize("username", [*USERNAMES, "<b>bold</b>", "a<b"])
def test_sign_up_refuses_a_username_with_markup(client, mailoutbox, username):
    response = client.post(
        reverse("account_signup"),
        {
            "username": username,
            "email": "new@example.com",
            "password1": "a-long-Passphrase-42",
            "password2": "a-long-Passphrase-42",
        },
    )

    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()
    assert mailoutbox == []
    assert_escaped(response.content.decode(), where="the sign-up form")


@pytest.fixture
def hostile(players, committed, mailoutbox):
    """Two players with markup in their names, in games named with markup: a table waiting in
    the lobby, an invitation to ada, a game in play and a finished game."""
    script, img = (
        make_person(USERNAMES[0], "script@example.com"),
        make_person(USERNAMES[1], "img@example.com"),
    )
    ada = players[0]
    waiting = committed(
        actions.create_game, creator=script, player_count=3, time_per_move=DAY, name=TITLES[0]
    )
    committed(actions.join_game, game_id=waiting.pk, user=img)
    invited = committed(
        actions.create_game,
        creator=img,
        player_count=2,
        time_per_move=DAY,
        name=TITLES[1],
        access=Game.Access.INVITATION,
        invitees=("ada",),
    )
    playing = committed(
        actions.create_game, creator=script, player_count=2, time_per_move=DAY, name=TITLES[1]
    )
    committed(actions.join_game, game_id=playing.pk, user=img)
    ended = ended_game([img, script], TITLES[0])
    for user in (script, img):  # the game-over email, written and sent as the end would
        email = OutboxEmail.objects.create(
            kind=notice.GAME_OVER,
            user=user,
            game_id=ended.pk,
            version=ended.version,
            message_id=f"<{user.pk}@x>",
        )
        assert outbox.send(email.pk) == "sent"
    Rating.objects.filter(user__in=[script, img]).update(games=5)  # on the leaderboard
    return {
        "script": script,
        "img": img,
        "ada": ada,
        "waiting": Game.objects.get(pk=waiting.pk),
        "invited": Game.objects.get(pk=invited.pk),
        "playing": Game.objects.get(pk=playing.pk),
        "ended": ended,
    }


@pytest.mark.django_db
def test_every_page_and_fragment_shows_names_and_titles_as_text(hostile):
    script, img, ada = hostile["script"], hostile["img"], hostile["ada"]
    waiting, invited, playing, ended = (
        hostile["waiting"],
        hostile["invited"],
        hostile["playing"],
        hostile["ended"],
    )
    both = (USERNAMES[0], USERNAMES[1])
    pages = [
        # (who looks, path, htmx, what it must show)
        (ada, reverse("games:lobby"), False, (TITLES[0], USERNAMES[0], USERNAMES[1])),
        (ada, reverse("games:game", args=[waiting.pk]), False, (TITLES[0], *both)),
        (script, reverse("games:game", args=[waiting.pk]), False, (TITLES[0], *both)),
        (ada, reverse("games:join_by_link", args=[invited.invite_token]), False, (TITLES[1],)),
        (ada, reverse("dashboard"), False, (TITLES[1], USERNAMES[1])),  # the invitation
        (script, reverse("dashboard"), False, (TITLES[1], TITLES[0], USERNAMES[1])),
        (ada, reverse("games:game", args=[playing.pk]), False, (TITLES[1], *both)),
        (script, reverse("games:game", args=[playing.pk]), False, (TITLES[1], USERNAMES[1])),
        (img, reverse("games:fragment", args=[playing.pk]), True, (TITLES[1], USERNAMES[0])),
        (ada, reverse("games:game", args=[playing.pk]), True, (TITLES[1], *both)),
        (ada, reverse("games:game", args=[ended.pk]), False, (TITLES[0], *both)),  # results
        (ada, reverse("games:replay", args=[ended.pk]), False, (TITLES[0], *both)),
        (ada, reverse("games:replay", args=[ended.pk]) + "?step=3", True, (TITLES[0], *both)),
        (ada, reverse("archive", args=[script.username]), False, (TITLES[0], *both)),
        (script, reverse("archive", args=[script.username]), True, (TITLES[0], USERNAMES[1])),
        (ada, reverse("players:profile", args=[script.username]), False, (TITLES[0], *both)),
        (ada, reverse("players:profile", args=[img.username]), False, (USERNAMES[1],)),
        (ada, reverse("leaderboard"), False, both),
        (None, reverse("leaderboard"), False, both),
        (None, reverse("players:profile", args=[img.username]), False, (USERNAMES[1],)),
        (script, reverse("accounts:settings"), False, (USERNAMES[0],)),  # the menu
    ]
    for viewer, path, htmx, shown in pages:
        headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "archive"} if htmx else {}
        response = client_for(viewer).get(path, **headers)
        assert response.status_code == 200, path
        assert_escaped(response.content.decode(), *shown, where=(viewer, path, htmx))


@pytest.mark.django_db
def test_every_email_about_them_shows_names_and_titles_as_text(hostile):
    sent = list(mail.outbox)
    subjects = " | ".join(message.subject for message in sent)
    for kind in ("invites you to play", "has started", "is over"):
        assert kind in subjects, subjects
    seen, plain = set(), set()
    for message in sent:
        [(html, mimetype)] = message.alternatives
        assert mimetype == "text/html"
        assert_escaped(html, where=message.subject)
        seen.update(text for text in (*USERNAMES, *TITLES) if escape(text) in html)
        # The subject and the text part are not HTML: the names as they are, no entities.
        for part in (message.subject, message.body):
            assert "&lt;" not in part and "&quot;" not in part and "&gt;" not in part, part
            plain.update(text for text in (*USERNAMES, *TITLES) if text in part)
    assert seen == {*USERNAMES, *TITLES}  # each was in some email, escaped in its HTML
    assert plain == {*USERNAMES, *TITLES}  # and as typed in its subject or text


@pytest.mark.django_db
def test_what_a_visitor_types_is_shown_back_as_text(hostile):
    """Reflected input: the names a player types into the invite and filter forms."""
    script, invited_by = hostile["script"], hostile["waiting"]
    browser = client_for(script)

    page = browser.post(
        reverse("games:invite", args=[invited_by.pk]), {"username": TITLES[0]}, follow=True
    )
    assert_escaped(page.content.decode(), TITLES[0], where="the invite refusal")
    page = browser.get(reverse("archive", args=[script.username]), {"opponent": TITLES[1]})
    assert_escaped(page.content.decode(), TITLES[1], where="the archive filter")
    page = browser.get(reverse("games:lobby"), {"player_count": TITLES[0], "rated": TITLES[1]})
    assert_escaped(page.content.decode(), where="the lobby filter")
    page = browser.post(reverse("games:create"), {"name": TITLES[0], "player_count": TITLES[1]})
    assert_escaped(page.content.decode(), TITLES[0], where="the create form")


@pytest.mark.django_db
def test_the_unsubscribe_page_shows_the_name_as_text(hostile):
    token = unsubscribe.make_token(hostile["img"], "all")
    page = client_for().get(reverse("accounts:unsubscribe", args=[token]))
    assert_escaped(page.content.decode(), USERNAMES[1], where="the unsubscribe page")


async def seat_number(game, user) -> int:
    return await sync_to_async(lambda: game.seats.get(user=user).number)()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("live_layer", "closes_thread_connections")
async def test_websocket_pushes_and_notices_show_names_and_titles_as_text(players):
    script = await sync_to_async(make_person)(USERNAMES[0], "script@example.com")
    img = await sync_to_async(make_person)(USERNAMES[1], "img@example.com")
    ada = players[0]
    game = await sync_to_async(actions.create_game)(
        creator=script, player_count=2, time_per_move=DAY, name=TITLES[0]
    )
    await sync_to_async(actions.join_game)(game_id=game.pk, user=img)
    watcher = await sync_to_async(login)(ada)
    own = await connect("/ws/live/", watcher)
    page = await connect(game_path(game, 0), await sync_to_async(login)(img))

    resync = await next_of(page, "resync")
    assert_escaped(resync["html"], TITLES[0], USERNAMES[0], where="the resync")
    presence = await next_of(page, "presence")
    assert_escaped(presence["html"], USERNAMES[0], where="the online dots")
    await messages(own)

    # A move: the push redraws the pool and the status (the title, whose turn it is).
    game = await sync_to_async(Game.objects.get)(pk=game.pk)
    mover = script if game.current_seat == await seat_number(game, script) else img
    tile = game.pool["columns"][-1][0]
    await sync_to_async(actions.play)(
        game_id=game.pk, user=mover, action=rules.Draft(tile), seen_version=None
    )
    push = await next_of(page, "push")
    assert_escaped(push["html"], TITLES[0], where="the push of a move")

    await sync_to_async(actions.create_game)(  # invites ada: a notice on her open pages
        creator=script,
        player_count=2,
        time_per_move=DAY,
        name=TITLES[1],
        access=Game.Access.INVITATION,
        invitees=("ada",),
    )
    notices = [m for m in await messages(own, timeout=0.5) if "notice" in m.get("html", "")]

    assert notices, "no invitation notice was pushed"
    for message in notices:
        assert_escaped(message["html"], TITLES[1], USERNAMES[0], where="the invitation notice")
    for socket in (own, page):
        await socket.disconnect()
