"""The outbox: every email is a row written with the change that caused it, sent at least once
by a task that claims it, never again once marked sent, and never long after it was due.
(What is sent to whom: test_notifications.py; a worker killed mid-send against a real SMTP
server: tests/faults/test_email_killed_mid_send.py.)"""

import smtplib
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import rules, tasks
from games.models import Game
from games.notices import delivery
from games.notices.delivery import NOTICE_KINDS
from games.notices.notice import DIGEST
from games.play import actions
from infra import outbox
from infra.models import OutboxEmail
from infra.tasks import send_email
from tests.games.playing import current_state
from tests.games.test_races import race

pytestmark = pytest.mark.django_db

Status = OutboxEmail.Status


def invitation(players, committed=None):
    """An invitation to players[1]: its email row (its task queued, and run with `committed`)."""
    create = actions.create_game
    options = dict(
        creator=players[0],
        player_count=2,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=(players[1].username,),
    )
    game = committed(create, **options) if committed else create(**options)
    return OutboxEmail.objects.get(game_id=game.pk, kind="invitation")


def test_the_email_row_is_written_in_the_changes_own_transaction(players, lost_tasks):
    lost = lost_tasks("infra.send_email")
    with pytest.raises(RuntimeError), transaction.atomic():
        invitation(players)
        raise RuntimeError("the change rolls back")
    assert not OutboxEmail.objects.exists() and lost == []

    email = invitation(players)

    assert (email.user, email.status, email.attempts) == (players[1], Status.PENDING, 0)
    assert email.message_id.startswith("<") and email.message_id.endswith("@localhost>")


def test_a_row_is_sent_once_with_its_message_id_and_never_again(players, committed):
    email = invitation(players, committed)

    [message] = mail.outbox
    assert message.extra_headers["Message-ID"] == email.message_id
    assert message.message()["Message-ID"] == email.message_id
    email.refresh_from_db()
    assert (email.status, email.attempts) == (Status.SENT, 1)
    assert email.sent_at is not None and email.claimed_until is None

    assert outbox.send(email.pk) == "not due"  # a second task, a sweep, a redelivery
    assert send_email.delay(email.pk).get() == "not due"
    assert len(mail.outbox) == 1


@pytest.mark.django_db(transaction=True)
def test_two_senders_racing_for_one_row_send_it_once(players, lost_tasks):
    lost_tasks("infra.send_email")
    email = invitation(players)
    real_send = EmailMultiAlternatives.send

    def slow_send(message, *args, **kwargs):
        time.sleep(0.3)  # the other sender arrives while this one sends
        return real_send(message, *args, **kwargs)

    EmailMultiAlternatives.send = slow_send
    try:
        outcomes = race(lambda: outbox.send(email.pk), lambda: outbox.send(email.pk))
    finally:
        EmailMultiAlternatives.send = real_send

    assert sorted(outcomes) == ["not due", "sent"]
    assert len(mail.outbox) == 1


def test_a_claimed_row_is_left_alone_until_its_claim_runs_out(players, lost_tasks, clock):
    lost_tasks("infra.send_email")  # the task of the row never comes
    email = invitation(players)
    clock.advance(outbox.SWEEP_GRACE + timedelta(seconds=1))
    # A sender claimed it and died before marking it (its worker was killed).
    OutboxEmail.objects.filter(pk=email.pk).update(
        claimed_until=clock.now() + outbox.CLAIM, attempts=1
    )

    assert outbox.due(clock.now()) == []
    assert outbox.send(email.pk) == "not due"
    clock.advance(outbox.CLAIM)
    assert outbox.due(clock.now()) == [email.pk]

    assert tasks.sweep()["emails"] == 1
    [message] = mail.outbox
    assert message.extra_headers["Message-ID"] == email.message_id
    email.refresh_from_db()
    assert (email.status, email.attempts) == (Status.SENT, 2)


def test_the_sweep_leaves_a_new_row_to_its_own_task_for_a_while(players, lost_tasks, clock):
    lost_tasks("infra.send_email")
    invitation(players)

    assert tasks.sweep()["emails"] == 0
    clock.advance(outbox.SWEEP_GRACE)
    assert tasks.sweep()["emails"] == 1
    assert len(mail.outbox) == 1


def test_a_failing_server_is_tried_again_later_and_at_last_given_up(
    players, committed, monkeypatch, clock
):
    attempts = []

    def refuse(message, *args, **kwargs):
        attempts.append(message.to)
        raise smtplib.SMTPRecipientsRefused({message.to[0]: (450, b"mailbox busy")})

    monkeypatch.setattr(EmailMultiAlternatives, "send", refuse)
    email = invitation(players, committed)
    waits = []
    for _ in range(outbox.MAX_ATTEMPTS - 1):
        email.refresh_from_db()
        assert email.status == Status.PENDING and email.claimed_until is None
        waits.append(email.due_at - clock.now())
        assert tasks.sweep()["emails"] == 0  # not due yet
        clock.advance(email.due_at - clock.now())
        committed(tasks.sweep)

    email.refresh_from_db()
    assert email.status == Status.FAILED and email.attempts == outbox.MAX_ATTEMPTS
    assert "SMTPRecipientsRefused" in email.last_error
    assert [wait.total_seconds() for wait in waits] == [30, 60, 120, 240, 480, 960, 1800]
    clock.advance(timedelta(days=1))
    assert tasks.sweep()["emails"] == 0  # never again
    assert len(attempts) == outbox.MAX_ATTEMPTS and mail.outbox == []


def test_an_email_no_longer_true_when_its_turn_comes_is_dropped(start_game, lost_tasks):
    lost = lost_tasks("infra.send_email")
    game = start_game(2)
    first = game.seats.get(number=0).user
    state = current_state(game)
    actions.play(
        game_id=game.pk, user=first, action=rules.Draft(state.draw_tiles()[0]), seen_version=None
    )
    actions.play(game_id=game.pk, user=first, action=rules.ConfirmDraft(), seen_version=None)
    [your_turn] = OutboxEmail.objects.filter(game_id=game.pk, kind="your_turn", data={})
    second = game.seats.get(number=1).user
    actions.play(
        game_id=game.pk,
        user=second,
        action=rules.Draft(current_state(game).draw_tiles()[0]),
        seen_version=None,
    )  # they moved before the email went
    mail.outbox.clear()

    assert [task.name for task in lost].count("infra.send_email") >= 1
    assert outbox.send(your_turn.pk) == "dropped"
    your_turn.refresh_from_db()
    assert your_turn.status == Status.DROPPED and mail.outbox == []


def test_a_readers_digest_is_one_row_a_day_however_often_it_is_written(players):
    readers = [(players[0].pk, "2030-01-15"), (players[1].pk, "2030-01-15")]
    first = delivery.add_digests(readers)
    again = delivery.add_digests(readers)

    assert len(first) == 2 and sorted(again) == sorted(first)
    assert OutboxEmail.objects.filter(kind="digest").count() == 2
    assert len(delivery.add_digests([(players[0].pk, "2030-01-16")])) == 1


@pytest.mark.django_db(transaction=True)
def test_account_emails_go_through_the_outbox_and_keep_no_links_once_sent(players):
    """allauth's password reset (accounts/adapter.py): a row, sent by its task, with the
    reset link; once sent, the row no longer holds the link."""
    Client().post(reverse("account_reset_password"), {"email": players[0].email})

    [message] = mail.outbox
    assert "/accounts/password/reset/key/" in message.body
    [email] = OutboxEmail.objects.filter(kind="account")
    assert (email.address, email.status) == (players[0].email, Status.SENT)
    assert message.extra_headers["Message-ID"] == email.message_id
    assert email.data == {}


def test_a_row_whose_senders_keep_dying_is_given_up_in_the_end(players, lost_tasks, clock):
    lost_tasks("infra.send_email")
    email = invitation(players)
    # Every attempt so far claimed it and died before it could say how it went.
    OutboxEmail.objects.filter(pk=email.pk).update(attempts=outbox.MAX_ATTEMPTS)

    assert outbox.send(email.pk) == "failed"

    email.refresh_from_db()
    assert email.status == Status.FAILED and "no attempt finished" in email.last_error
    assert mail.outbox == []


def test_a_row_that_cannot_be_built_is_tried_again_later_not_at_once(
    players, lost_tasks, monkeypatch, clock
):
    lost_tasks("infra.send_email")
    email = invitation(players)

    def broken(row):
        raise KeyError("a template's context")

    monkeypatch.setattr(outbox, "build", broken)
    with pytest.raises(KeyError):
        outbox.send(email.pk)

    email.refresh_from_db()
    assert (email.status, email.claimed_until) == (Status.PENDING, None)
    assert email.due_at > clock.now() and "KeyError" in email.last_error


def test_a_row_of_a_kind_no_app_registered_is_kept_and_tried_again(players, clock):
    """The outbox (infra/) sends only the kinds the apps registered (games/notices/delivery.py):
    a row of any other kind is a bug, which must not lose it: it waits out the back-off, with
    the reason, and is given up only after MAX_ATTEMPTS like any row that cannot be built."""
    email = OutboxEmail.objects.create(kind="postcard", user=players[0], message_id="<p@x>")

    with pytest.raises(LookupError):
        outbox.send(email.pk)

    email.refresh_from_db()
    assert (email.status, email.claimed_until, email.attempts) == (Status.PENDING, None, 1)
    assert email.due_at > clock.now() and "postcard" in email.last_error
    assert mail.outbox == []


def test_the_games_register_every_kind_of_notice_they_write():
    """Each kind of row the games write has its sender (games/apps.py at start-up): an email
    for every one, a Web Push for the notices (not the digest)."""
    for kind in (*NOTICE_KINDS, DIGEST):
        assert outbox.kind_of(kind) is not None, kind
    assert outbox.kind_of(DIGEST).push is None
    assert all(outbox.kind_of(kind).push for kind in NOTICE_KINDS)
