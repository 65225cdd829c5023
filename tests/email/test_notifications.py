"""Who gets which email: the right messages to the right people, with links that work, in their
own time zone, as their preferences say, never while they watch the game, never for a change
that rolled back, and never at the cost of a move. (How the outbox sends them: test_outbox.py.)"""

import re
import smtplib
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.test import Client

from games import presence, rules, tasks
from games.models import Game
from games.play import actions
from infra.models import OutboxEmail
from infra.tasks import send_email
from tests.games.playing import current_state, draft_the_top_tile

from .smtp import html_part, smtp_server, text_part

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
PREFIX = "[Microchip Online] "


def seat_user(game, number):
    return game.seats.get(number=number).user


def to(user):
    return [message for message in mail.outbox if message.to == [user.email]]


def subjects(user):
    return [message.subject.removeprefix(PREFIX) for message in to(user)]


def links(message):
    return re.findall(r"https?://\S+", message.body)


def get_as(user, url):
    """Follow an email's link as `user` (logged in), or anonymously with user=None."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(urlsplit(url).path)


# --- the game's life ---------------------------------------------------------------------------


def test_everyone_hears_the_game_started_and_only_the_first_player_that_it_is_their_move(
    start_game,
):
    game = start_game(3)
    first, second, third = (seat_user(game, n) for n in range(3))

    assert subjects(first) == [f"{game.title} has started: your move"]
    assert subjects(second) == [f"{game.title} has started"]
    assert subjects(third) == [f"{game.title} has started"]
    assert "You play first: draft a tile by" in to(first)[0].body
    assert f"{first.username} plays first" in to(second)[0].body
    # The link takes the player to the game.
    game_link = next(link for link in links(to(first)[0]) if "/games/" in link)
    assert game_link == f"http://localhost:8000/games/{game.pk}/"
    assert get_as(first, game_link).status_code == 200


def test_the_first_player_who_wants_no_start_email_still_hears_it_is_their_move(players, committed):
    game = actions.create_game(creator=players[0], player_count=2, time_per_move=HOUR)
    for player in players[:2]:
        player.email_game_started = False
        player.save()

    committed(actions.join_game, game_id=game.pk, user=players[1])

    game.refresh_from_db()
    assert subjects(seat_user(game, 0)) == [f"Your move in {game.title}"]
    assert subjects(seat_user(game, 1)) == []


def test_the_next_player_is_told_it_is_their_move_with_a_working_link(start_game, committed):
    game = start_game(2)
    second = seat_user(game, 1)
    mail.outbox.clear()

    mover = draft_the_top_tile(game, committed)

    assert subjects(mover) == []
    [message] = to(second)
    assert message.subject == f"{PREFIX}Your move in {game.title}"
    assert f"It is your move in {game.title} (with {mover.username})" in message.body
    game_link = f"http://localhost:8000/games/{game.pk}/"
    assert game_link in links(message)
    assert f'href="{game_link}"' in message.alternatives[0][0]
    assert get_as(second, game_link).status_code == 200


def test_times_are_shown_in_the_recipients_own_time_zone(start_game, committed, clock):
    clock.to(datetime(2030, 1, 15, 12, 0, tzinfo=UTC))
    game = start_game(2, time_per_move=HOUR * 6)
    second = seat_user(game, 1)
    second.time_zone = "America/New_York"
    second.save()
    first = seat_user(game, 0)
    first.time_zone = "Asia/Tokyo"
    first.save()
    mail.outbox.clear()

    draft_the_top_tile(game, committed)  # 12:00 UTC: the second player's move is due at 18:00 UTC
    draft_the_top_tile(game, committed)  # and then the first player's, also at 18:00 UTC

    assert "Draft a tile by Tuesday 15 January, 13:00 EST" in to(second)[0].body
    assert "13:00 EST" in html_part_of(to(second)[0])
    assert "Draft a tile by Wednesday 16 January, 03:00 JST" in to(first)[0].body


def html_part_of(message):
    return message.alternatives[0][0]


@pytest.mark.slow
def test_the_finishing_phase_and_the_end_are_told_to_everyone_with_place_and_score(
    start_game, committed
):
    game = start_game(3)
    mail.outbox.clear()
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    for seat in game.seats.select_related("user"):
        committed(
            actions.play, game_id=game.pk, user=seat.user, action=rules.Finish(), seen_version=None
        )

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    places = [seat.place for seat in game.seats.all()]
    for seat in game.seats.select_related("user"):
        names = subjects(seat.user)
        assert f"Finish your board in {game.title}" in names
        [over] = [m for m in to(seat.user) if "is over" in m.subject]
        place = {1: "1st", 2: "2nd", 3: "3rd"}[seat.place]
        if places.count(seat.place) > 1:  # a tie on score and chip size
            place += " (shared)"
        assert over.subject == f"{PREFIX}{game.title} is over: you came {place}"
        assert f"You came {place} with {seat.score} point" in over.body
        for other in game.seats.select_related("user"):
            assert other.user.username in over.body
        assert "Your finishing time ran out" not in over.body
        assert f"http://localhost:8000/games/{game.pk}/" in over.body


def test_an_invitation_reaches_the_invitee_with_a_link_to_take_the_seat(players, committed):
    host, guest = players[0], players[3]
    game = committed(
        actions.create_game,
        creator=host,
        player_count=3,
        time_per_move=HOUR * 24,
        access=Game.Access.INVITATION,
        invitees=(guest.username,),
        name="Friday chips",
    )

    [message] = mail.outbox
    assert message.to == [guest.email]
    assert message.subject == f"{PREFIX}{host.username} invites you to play Friday chips"
    assert "3 players, 1 day per move" in message.body
    link = f"http://localhost:8000/games/{game.pk}/"
    assert link in links(message)
    assert get_as(guest, link).status_code == 200
    assert get_as(players[4], link).status_code == 404  # the table stays private

    players[4].email_invitation = False
    players[4].save()
    committed(actions.invite_player, game_id=game.pk, inviter=host, username=players[4].username)
    assert len(mail.outbox) == 1


# --- preferences, the digest, presence ---------------------------------------------------------


def test_each_kind_of_email_can_be_switched_off(start_game, committed):
    game = start_game(2)
    second = seat_user(game, 1)
    second.email_your_turn = False
    second.save()
    mail.outbox.clear()

    draft_the_top_tile(game, committed)

    assert to(second) == []


def test_no_email_about_a_move_while_the_player_is_watching_the_game(start_game, committed):
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    mail.outbox.clear()

    presence.arrive(game.pk, second.pk, "tab-1")
    draft_the_top_tile(game, committed)  # the first player moves while the second one watches
    assert to(second) == []

    presence.depart(game.pk, second.pk, "tab-1")
    draft_the_top_tile(game, committed)
    draft_the_top_tile(game, committed)  # the first player moves, and nobody watches now
    assert subjects(first) == [f"Your move in {game.title}"]
    assert subjects(second) == [f"Your move in {game.title}"]


def test_a_your_move_email_that_comes_late_is_dropped_once_the_move_is_made(start_game):
    game = start_game(2)
    second = seat_user(game, 1)
    state = current_state(game)
    first = seat_user(game, 0)
    actions.play(
        game_id=game.pk, user=first, action=rules.Draft(state.draw_tiles()[0]), seen_version=None
    )
    actions.play(game_id=game.pk, user=first, action=rules.ConfirmDraft(), seen_version=None)
    game.refresh_from_db()
    turn_version = game.pool_version
    actions.play(
        game_id=game.pk,
        user=second,
        action=rules.Draft(current_state(game).draw_tiles()[0]),
        seen_version=None,
    )
    mail.outbox.clear()
    # The email of that turn is sent only now, after the second player has already drafted.
    late = OutboxEmail.objects.create(
        kind="your_turn", user=second, game_id=game.pk, version=turn_version, message_id="<late@x>"
    )

    assert send_email.delay(late.pk).get() == "dropped"
    assert mail.outbox == []
    late.refresh_from_db()
    assert late.status == OutboxEmail.Status.DROPPED


def test_digest_readers_get_one_morning_email_instead_of_one_per_turn(start_game, committed, clock):
    clock.to(datetime(2030, 1, 15, 12, 0, tzinfo=UTC))
    game = start_game(2, time_per_move=HOUR * 24)
    other = start_game(2, time_per_move=HOUR * 48)
    reader = seat_user(game, 1)
    reader.email_daily_digest = True
    reader.time_zone = "Asia/Tokyo"  # UTC+9
    reader.save()
    mail.outbox.clear()

    draft_the_top_tile(game, committed)
    if seat_user(other, 0) != reader:
        draft_the_top_tile(other, committed)
    assert to(reader) == []  # no email per turn

    clock.to(datetime(2030, 1, 15, 21, 30, tzinfo=UTC))  # 06:30 in Tokyo: too early
    committed(tasks.send_daily_digests)
    assert to(reader) == []
    clock.to(datetime(2030, 1, 15, 23, 5, tzinfo=UTC))  # 08:05 in Tokyo
    committed(tasks.send_daily_digests)
    clock.advance(HOUR)
    committed(tasks.send_daily_digests)  # a later run the same morning sends nothing more

    [digest] = to(reader)
    assert digest.subject == f"{PREFIX}2 games waiting for your move"
    assert f"http://localhost:8000/games/{game.pk}/" in digest.body
    assert f"http://localhost:8000/games/{other.pk}/" in digest.body
    assert "by Wednesday 16 January, 21:00 JST" in digest.body  # 12:00 UTC the next day
    assert get_as(reader, f"http://localhost:8000/games/{game.pk}/").status_code == 200
    # Other players, who chose no digest, get none.
    committed(tasks.send_daily_digests)
    assert len([m for m in mail.outbox if "waiting for your move" in m.subject]) == 1

    clock.advance(HOUR * 24)  # the next morning, again
    committed(tasks.send_daily_digests)
    assert len(to(reader)) == 2


def test_no_digest_when_no_game_waits(start_game, committed, clock):
    clock.to(datetime(2030, 1, 15, 8, 30, tzinfo=UTC))
    game = start_game(2)
    waiting = seat_user(game, 1)  # it is seat 0's move
    waiting.email_daily_digest = True
    waiting.save()
    mail.outbox.clear()

    committed(tasks.send_daily_digests)

    assert mail.outbox == []


# --- sending -----------------------------------------------------------------------------------


def test_every_email_is_text_and_html_with_the_unsubscribe_headers(start_game):
    start_game(2)

    assert mail.outbox
    for message in mail.outbox:
        assert message.from_email == "Microchip Online <noreply@localhost>"
        assert message.subject.startswith(PREFIX)
        html, mimetype = message.alternatives[0]
        assert mimetype == "text/html"
        assert "<html" in html and "Microchip Online" in html
        assert "Microchip Online" in message.body
        unsubscribe = message.extra_headers["List-Unsubscribe"]
        assert unsubscribe.startswith("<http://localhost:8000/unsubscribe/")
        assert unsubscribe[1:-1] in message.body
        assert f'href="{unsubscribe[1:-1]}"' in html
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert "&amp;" not in message.body and "&#x27;" not in message.body


def test_an_smtp_failure_is_retried_and_the_email_goes_out(
    start_game, committed, monkeypatch, clock
):
    game = start_game(2)
    second = seat_user(game, 1)
    mail.outbox.clear()
    real_send = EmailMultiAlternatives.send
    failures = []

    def flaky_send(message, *args, **kwargs):
        if len(failures) < 2:
            failures.append(message.to)
            raise smtplib.SMTPServerDisconnected("the server went away")
        return real_send(message, *args, **kwargs)

    monkeypatch.setattr(EmailMultiAlternatives, "send", flaky_send)

    draft_the_top_tile(game, committed)
    assert failures == [[second.email]] and mail.outbox == []
    [email] = OutboxEmail.objects.filter(user=second, kind="your_turn")
    assert (email.status, email.attempts) == (OutboxEmail.Status.PENDING, 1)

    committed(tasks.sweep)  # not due yet: the first retry waits 30 s
    assert len(failures) == 1
    clock.advance(timedelta(seconds=31))
    committed(tasks.sweep)
    assert len(failures) == 2
    clock.advance(timedelta(seconds=61))  # then a minute
    committed(tasks.sweep)

    assert subjects(second) == [f"Your move in {game.title}"]
    email.refresh_from_db()
    assert (email.status, email.attempts) == (OutboxEmail.Status.SENT, 3)


def test_an_email_that_keeps_failing_never_breaks_the_move(start_game, committed, monkeypatch):
    game = start_game(2)

    def broken_send(message, *args, **kwargs):
        raise ConnectionRefusedError("no SMTP server")

    monkeypatch.setattr(EmailMultiAlternatives, "send", broken_send)
    mail.outbox.clear()

    mover = draft_the_top_tile(game, committed)

    game.refresh_from_db()
    assert game.current_seat == 1
    assert game.events.filter(kind="confirm_draft", actor=mover).exists()


def test_a_change_that_rolls_back_sends_nothing(start_game, django_capture_on_commit_callbacks):
    game = start_game(2)
    first = seat_user(game, 0)
    mail.outbox.clear()

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        actions.play(
            game_id=game.pk,
            user=first,
            action=rules.Draft(current_state(game).draw_tiles()[0]),
            seen_version=None,
        )
        actions.play(game_id=game.pk, user=first, action=rules.ConfirmDraft(), seen_version=None)
        raise RuntimeError("something failed after the move, in the same transaction")

    assert mail.outbox == []


def test_the_emails_go_through_a_real_smtp_server(start_game, settings):
    with smtp_server() as (inbox, port):
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""

        game = start_game(2)

        first = seat_user(game, 0)
        message = inbox.wait_for(lambda m: first.email in m["To"])
    assert message.is_multipart()
    assert "You play first" in text_part(message)
    assert "<strong>" in html_part(message)
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert len(inbox.messages) == 2


def emails_written(game, since=0):
    """(kind, recipient) of the game's outbox rows after the row numbered `since`."""
    rows = OutboxEmail.objects.filter(game_id=game.pk, pk__gt=since).order_by("pk")
    return [(row.kind, row.user_id) for row in rows]


def last_row():
    return OutboxEmail.objects.order_by("pk").values_list("pk", flat=True).last() or 0


def test_no_email_is_written_for_a_player_watching_the_game(start_game, committed):
    """Their page shows the move as it happens and the email would be dropped: the move writes
    none (most players are looking when their turn begins). Once they leave, it is written."""
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    since = last_row()

    presence.arrive(game.pk, second.pk, "tab-1")
    draft_the_top_tile(game, committed)  # the second player's turn, while they watch
    assert emails_written(game, since) == []

    presence.depart(game.pk, second.pk, "tab-1")
    draft_the_top_tile(game, committed)  # the first player's turn: they are not watching either
    draft_the_top_tile(game, committed)  # and back to the second player, who has left
    assert emails_written(game, since) == [("your_turn", first.pk), ("your_turn", second.pk)]


def test_the_email_is_written_when_presence_cannot_be_read(start_game, committed, monkeypatch):
    """Presence is a hint: without it, the email is written and its sender decides."""
    game = start_game(2)
    second = seat_user(game, 1)
    presence.arrive(game.pk, second.pk, "tab-1")
    since = last_row()

    def unreachable(*args, **kwargs):
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(presence, "_redis", unreachable)
    draft_the_top_tile(game, committed)

    assert emails_written(game, since) == [("your_turn", second.pk)]


def test_no_email_is_written_when_the_players_own_settings_refuse_it(start_game, committed):
    """It would be dropped whenever it was sent: the move writes none. Switched on, it is."""
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    second.email_your_turn = False
    second.save()
    since = last_row()

    draft_the_top_tile(game, committed)
    assert emails_written(game, since) == []

    second.email_your_turn = True
    second.save()
    draft_the_top_tile(game, committed)  # the second player's move: the first one's turn
    draft_the_top_tile(game, committed)  # and back to the second player
    assert emails_written(game, since) == [("your_turn", first.pk), ("your_turn", second.pk)]
