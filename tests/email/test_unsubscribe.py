"""Unsubscribe links: following one changes nothing (mail scanners and link previewers fetch
them) and asks first; the page's button or the mail client's one-click POST unsubscribes without
logging in; it can be undone, and cannot be forged for another user."""

import re
from urllib.parse import urlsplit

import pytest
from django.core import mail, signing
from django.test import Client

from accounts import unsubscribe
from accounts.models import User
from tests.games.playing import draft_the_top_tile

pytestmark = pytest.mark.django_db

NOTIFICATIONS = [
    "email_your_turn",
    "email_reminder",
    "email_timeout",
    "email_invitation",
    "email_game_started",
    "email_game_over",
    "email_daily_digest",
]


def switches(user):
    user = User.objects.get(pk=user.pk)
    return {name: getattr(user, name) for name in NOTIFICATIONS}


def path_of(url):
    return urlsplit(url).path


def press_the_button(client, path):
    """Follow the link with `client` and press the page's button, as a person does; return the
    page the button answers with."""
    page = client.get(path)
    assert page.status_code == 200
    action = re.search(rb'<form method="post" action="([^"]+)">', page.content)[1].decode()
    assert action == path
    csrf = client.cookies["csrftoken"].value
    return client.post(action, {"csrfmiddlewaretoken": csrf})


def your_move_email(game, committed):
    """Return the player whose move comes next and the 'your move' email they got."""
    mail.outbox.clear()
    draft_the_top_tile(game, committed)
    [message] = mail.outbox
    return User.objects.get(email=message.to[0]), message


def test_following_the_link_changes_nothing_and_asks_first(start_game, committed):
    game = start_game(2)
    player, message = your_move_email(game, committed)
    link = re.search(r"Stop these emails \(no log-in needed\): (\S+)", message.body)[1]
    assert f"<{link}>" == message.extra_headers["List-Unsubscribe"]
    before = switches(player)

    page = Client().get(path_of(link))

    assert page.status_code == 200
    text = page.content.decode()
    assert "Stop these emails?" in text
    assert f"<strong>{player.username}</strong>" in text  # which account
    assert "get no more emails telling you it is your move" in text  # which emails
    assert f'<form method="post" action="{path_of(link)}">' in text
    assert 'name="csrfmiddlewaretoken"' in text
    assert '<button type="submit">Unsubscribe</button>' in text
    assert "You are unsubscribed" not in text and "/undo/" not in text
    assert switches(player) == before
    # Still sent: following the link a second time (a scanner, then a previewer) changes nothing.
    Client().get(path_of(link))
    mail.outbox.clear()
    draft_the_top_tile(game, committed)
    draft_the_top_tile(game, committed)
    assert [player.email] in [m.to for m in mail.outbox]


def test_the_pages_button_unsubscribes_from_that_kind_without_logging_in(start_game, committed):
    game = start_game(2)
    player, message = your_move_email(game, committed)
    link = message.extra_headers["List-Unsubscribe"][1:-1]

    page = press_the_button(Client(enforce_csrf_checks=True), path_of(link))

    assert page.status_code == 200
    assert b"You are unsubscribed" in page.content
    assert b"emails telling you it is your move" in page.content
    assert switches(player) == {**dict.fromkeys(NOTIFICATIONS, True), "email_your_turn": False,
                                "email_daily_digest": False}  # fmt: skip
    # No more such emails.
    mail.outbox.clear()
    draft_the_top_tile(game, committed)
    draft_the_top_tile(game, committed)
    assert [m for m in mail.outbox if m.to == [player.email]] == []


def test_the_pages_button_needs_its_csrf_token(players):
    """Only the mail client's one-click POST goes without a CSRF token."""
    player = players[1]
    before = switches(player)
    path = path_of(unsubscribe.unsubscribe_url(player, "all"))
    client = Client(enforce_csrf_checks=True)
    client.get(path)

    for form in [{}, {"List-Unsubscribe": "Yes"}, {"csrfmiddlewaretoken": "x" * 64}]:
        assert client.post(path, form).status_code == 403, form

    assert switches(player) == before


def test_the_mail_clients_one_click_post_needs_no_csrf_token(start_game, committed):
    game = start_game(2)
    player, message = your_move_email(game, committed)
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    header = message.extra_headers["List-Unsubscribe"]

    # RFC 8058: no cookies, no CSRF token; the body multipart/form-data here...
    response = Client(enforce_csrf_checks=True).post(
        path_of(header[1:-1]), {"List-Unsubscribe": "One-Click"}
    )

    assert response.status_code == 200  # done at once, never a redirect (RFC 8058)
    assert b"You are unsubscribed" in response.content
    assert switches(player)["email_your_turn"] is False


def test_the_one_click_post_may_be_urlencoded(players):
    player = players[1]

    response = Client(enforce_csrf_checks=True).post(
        path_of(unsubscribe.unsubscribe_url(player, "game_over")),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 200
    assert switches(player)["email_game_over"] is False


def test_a_link_checker_that_only_asks_head_unsubscribes_nobody(players):
    token = unsubscribe.make_token(players[1], "your_turn")

    response = Client().head(f"/unsubscribe/{token}/")

    assert response.status_code == 200
    assert switches(players[1])["email_your_turn"] is True


def test_other_methods_are_not_allowed(players):
    player = players[1]
    before = switches(player)
    path = path_of(unsubscribe.unsubscribe_url(player, "all"))

    for method in ("put", "patch", "delete", "options"):
        response = getattr(Client(), method)(path, "List-Unsubscribe=One-Click")
        assert response.status_code == 405, method
        assert set(response["Allow"].split(", ")) == {"GET", "HEAD", "POST"}

    assert switches(player) == before


def test_stop_everything_and_undo(players):
    player = players[2]
    player.email_daily_digest = True
    player.email_timeout = False
    player.save()
    before = switches(player)
    url = unsubscribe.unsubscribe_url(player, "all")
    client = Client(enforce_csrf_checks=True)

    page = press_the_button(client, path_of(url))

    assert b"you will get no more emails from Microchip Online (but those" in page.content
    assert b"no more every" not in page.content
    assert set(switches(player).values()) == {False}
    undo = re.search(rb'action="([^"]+/undo/)"', page.content)[1].decode()
    csrf = client.cookies["csrftoken"].value
    restored = client.post(undo, {"csrfmiddlewaretoken": csrf})
    assert restored.status_code == 200
    assert b"Your emails are back" in restored.content
    assert switches(player) == before


def test_stopping_the_digest_does_not_bring_back_the_your_move_emails(players):
    """The digest replaced the "your move" emails: they stay off. The reminders near a deadline
    came to the digest reader anyway, and stay as they were."""
    player = players[1]
    player.email_daily_digest = True
    player.save()

    press_the_button(Client(), path_of(unsubscribe.unsubscribe_url(player, "digest")))

    after = switches(player)
    assert not after["email_daily_digest"]
    assert not after["email_your_turn"]
    assert after["email_reminder"] and after["email_game_over"]


def test_a_token_cannot_be_forged_for_another_user(players):
    victim, attacker = players[0], players[1]
    mine = unsubscribe.make_token(attacker, "all")
    signature = mine.split(":", 1)[1]
    # The same signature on a payload naming the victim.
    forged_payload = signing.b64_encode(f'{{"u":{victim.pk},"t":"all"}}'.encode()).decode()
    claim = {"u": victim.pk, "t": "all"}
    attempts = [
        f"{forged_payload}:{signature}",
        signing.dumps(claim, salt="another.purpose"),
        signing.dumps(claim, key="not-the-secret-key", salt=unsubscribe.SALT),
        signing.dumps({"u": victim.pk, "t": "everything"}, salt=unsubscribe.SALT),
        mine[:-2],
        "nonsense",
    ]

    for token in attempts:
        page = Client().get(f"/unsubscribe/{token}/")
        assert page.status_code == 400, token
        assert b"This link does not work" in page.content
        assert Client().head(f"/unsubscribe/{token}/").status_code == 400, token
        # The mail client's one-click POST, and the page's button (with its CSRF token).
        page = Client().post(f"/unsubscribe/{token}/", {"List-Unsubscribe": "One-Click"})
        assert page.status_code == 400, token
        assert b"This link does not work" in page.content
        client = Client(enforce_csrf_checks=True)
        client.get(f"/unsubscribe/{mine}/")  # the attacker's own page, for a CSRF cookie
        csrf = client.cookies["csrftoken"].value
        page = client.post(f"/unsubscribe/{token}/", {"csrfmiddlewaretoken": csrf})
        assert page.status_code == 400, token
        assert b"This link does not work" in page.content

    assert set(switches(victim).values()) == {True, False}  # untouched defaults
    assert switches(victim)["email_your_turn"] is True
    # The attacker's own genuine token only ever unsubscribes the attacker.
    Client().post(f"/unsubscribe/{mine}/", {"List-Unsubscribe": "One-Click"})
    assert set(switches(attacker).values()) == {False}
    assert switches(victim)["email_your_turn"] is True


def test_an_undo_token_cannot_be_forged_either(players):
    victim = players[0]
    forged = signing.dumps({"u": victim.pk, "before": {"email_your_turn": False}}, salt="x")
    client = Client()

    response = client.post(f"/unsubscribe/{forged}/undo/")

    assert response.status_code == 400
    assert switches(victim)["email_your_turn"] is True
