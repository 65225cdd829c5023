"""A worker killed in the middle of handing an email to a slow SMTP server (issue: emails were
sent twice, or an hour late, after Redis's visibility timeout).

The email is a row of the outbox (infra/outbox.py): the worker claims it, sends it, and
marks it sent. Killed before the server accepted the message, the row's claim runs out and the
sweep queues it again: it is delivered exactly once, within a couple of minutes. Killed after
the server accepted it but before the row was marked, it is delivered once more, with the same
Message-ID, which mail clients show as one message.

A real SMTP server (aiosmtpd) that stalls where the test says: before it answers the message's
DATA (it never accepts that attempt), or before it answers QUIT (it has accepted the message).
The workers' EMAIL_TIMEOUT is 4 s and their PUSH_TIMEOUT 2 s, so a claim lasts 33 s
(infra/outbox.py CLAIM); with the default PUSH_TIMEOUT it would last 65 s.
"""

import asyncio
import logging
import threading
import time
from datetime import timedelta

import pytest

from games.models import Game
from games.play import actions
from infra.models import OutboxEmail
from tests.email.smtp import Inbox, smtp_server

from .conftest import Beat, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]
logger = logging.getLogger(__name__)

EMAIL_TIMEOUT = 4  # the workers' (settings.EMAIL_TIMEOUT)
PUSH_TIMEOUT = 2  # theirs for each browser: a claim lasts max(2 * 4, 4 * 2) + 10 + 15 s
STALL = 60.0  # longer than the test waits before it kills the worker


class StallingInbox(Inbox):
    """An inbox that can stall an exchange before it answers DATA or QUIT."""

    def __init__(self):
        super().__init__()
        self.stall: str | None = None  # "data", "quit" or None
        self.stalled = threading.Event()

    async def handle_DATA(self, server, session, envelope):
        if self.stall == "data":
            self.stalled.set()
            await asyncio.sleep(STALL)  # the sender is gone by then: this attempt is lost
            return "451 4.3.0 Try again later"
        return await super().handle_DATA(server, session, envelope)

    async def handle_QUIT(self, server, session, envelope):
        if self.stall == "quit":  # the message is accepted; the goodbye never comes
            self.stalled.set()
            await asyncio.sleep(STALL)
        return "221 Bye"


def invite(make_player):
    """An invitation: an email written with the change, and its task queued to the workers."""
    host, guest = make_player("host"), make_player("guest")
    game = actions.create_game(
        creator=host,
        player_count=2,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
    )
    actions.invite_player(game_id=game.pk, inviter=host, username=guest.username)
    return guest, OutboxEmail.objects.get(user=guest, kind="invitation")


def copies(inbox, guest):
    return inbox.to(guest.email)


@pytest.mark.parametrize(
    ("stall", "delivered"),
    [
        ("data", 1),  # killed before the server accepted the message: exactly once
        ("quit", 2),  # killed after it accepted: once more, the same Message-ID
    ],
)
def test_an_email_whose_worker_is_killed_mid_send_is_delivered_again_by_the_sweep(
    stack, make_player, stall, delivered
):
    with smtp_server(StallingInbox()) as (inbox, port):
        stack.env.update(
            EMAIL_URL=f"smtp://127.0.0.1:{port}",
            EMAIL_TIMEOUT=str(EMAIL_TIMEOUT),
            PUSH_TIMEOUT=str(PUSH_TIMEOUT),
        )
        inbox.stall = stall
        worker = stack.worker()
        with Beat():
            guest, email = invite(make_player)
            wait_until(inbox.stalled.is_set, 30, "the worker handing the email to the server")
            worker.kill()
            killed = time.monotonic()
            inbox.stall = None
            stack.worker()

            wait_until(lambda: len(copies(inbox, guest)) == delivered, 150, "the delivery")
            took = time.monotonic() - killed
            logger.info("stalled at %s: delivered %.1f s after the kill", stall, took)
            wait_until(
                lambda: OutboxEmail.objects.get(pk=email.pk).status == OutboxEmail.Status.SENT,
                30,
                "the email marked sent",
            )
            time.sleep(3)  # a few more sweeps: nothing more is sent

    received = copies(inbox, guest)
    assert len(received) == delivered
    assert {message["Message-ID"] for message in received} == {email.message_id}
    assert "invites you" in received[0]["Subject"]
    assert took < 120  # within a couple of minutes, not Redis's visibility timeout (an hour)
    email.refresh_from_db()
    assert email.attempts == 2
