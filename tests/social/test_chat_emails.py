"""The "your move" email and the daily digest count the table talk's messages the player has
not read, and never quote them."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail

from games import tasks
from games.play import chat as talk
from tests.email.test_notifications import seat_user, to
from tests.games.playing import draft_the_top_tile

pytestmark = pytest.mark.django_db


def your_move_emails(user):
    return [message for message in to(user) if "Your move" in message.subject]


def test_the_your_move_email_counts_unread_messages_without_quoting_them(start_game, committed):
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    for text in ("psst, column 4 is a trap", "and mind the pink tiles"):
        committed(talk.send_message, game_id=game.pk, user=first, text=text)
    mail.outbox.clear()

    draft_the_top_tile(game, committed)  # the first player's turn: now the second's

    [email] = your_move_emails(second)
    html = email.alternatives[0][0]
    for body in (email.body, html):
        assert "2 new messages in the table talk." in body
        assert "column 4" not in body and "pink tiles" not in body


def test_a_your_move_email_says_nothing_of_the_talk_when_all_is_read(start_game, committed):
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    said = committed(talk.send_message, game_id=game.pk, user=first, text="hello")
    talk.read_chat(game_id=game.pk, user=second, up_to=said.message.pk)
    mail.outbox.clear()

    draft_the_top_tile(game, committed)

    [email] = your_move_emails(second)
    assert "new message" not in email.body


def test_the_digest_counts_each_game_s_unread_messages(start_game, committed, clock):
    clock.to(datetime(2030, 1, 15, 12, 0, tzinfo=UTC))
    game = start_game(2, time_per_move=timedelta(days=1))
    reader = seat_user(game, 1)
    reader.email_daily_digest = True
    reader.save()
    committed(talk.send_message, game_id=game.pk, user=seat_user(game, 0), text="secret plan")
    draft_the_top_tile(game, committed)
    mail.outbox.clear()

    clock.to(datetime(2030, 1, 16, 8, 5, tzinfo=UTC))  # the reader's morning (UTC)
    committed(tasks.send_daily_digests)

    [digest] = [message for message in to(reader) if "waiting for your move" in message.subject]
    assert "your move, by " in digest.body and "; 1 new message\n" in digest.body
    assert "secret plan" not in digest.body
    assert "1 new message" in digest.alternatives[0][0]
