"""The email outbox: every email is first a row, written in the transaction of what caused it,
then sent by a task: at least once, never twice once it is marked sent, and never an hour late.

Both apps write to it, each its own kinds of row, and say at start-up how a row of each kind
becomes its message (`register`):

- `add_message`: an email made elsewhere, stored as it is (allauth's account emails,
  accounts/adapter.py); this module builds it again from the row;
- the games' notices and daily digests (games/notices/delivery.py writes them and registers how
  each is built, as an email or as a Web Push).

After the commit the task `infra.send_email` (infra/tasks.py) sends each new row
(`send_after_commit`, or the games' after-commit dispatcher, games/effects.py).

Sending (`send`): the task claims the row until `CLAIM` from now, longer than a send may take (the
task's hard time limit, `SEND_TIME_LIMIT`), so that the sweep leaves a row being sent alone; builds
the message, or drops the row if it is no longer due (the kind's builder says so: the player
moved, watches the game or has looked at it since, switched that email off); sends it with the
row's own Message-ID; marks it sent. When the SMTP server fails (or the message cannot be built),
the row is released and due again after a back-off; after MAX_ATTEMPTS attempts, finished or not,
it is marked failed. A sender killed in the middle leaves its claim to run out, and the sweep
(`due`, run every minute by games.sweep) queues the row again: a message the server had already
accepted is sent once more with the same Message-ID, which mail clients show once. The sweep also
sends a row written due later (a watcher's) once it is due.

A row of channel "push" goes by the push sender its kind registered (a notice as Web Push,
games/notices/webpush.py), with the same claims and back-off; when that sender says the player
has no way left to take it (no subscribed browser), the row is sent as an email.
"""

import logging
import smtplib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.utils import make_msgid
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from infra.models import OutboxEmail

logger = logging.getLogger(__name__)

ACCOUNT = "account"
SEND_TASK = "infra.send_email"
# The Web Push of one row goes to at most this many browsers (games/notices/webpush.py), each
# given settings.PUSH_TIMEOUT.
MAX_BROWSERS = 4
# The send task's hard time limit: connecting, the exchange and quitting each wait at most
# EMAIL_TIMEOUT for the server (a push, PUSH_TIMEOUT for each of its browsers); Celery kills the
# task past this.
SEND_TIME_LIMIT = max(2 * settings.EMAIL_TIMEOUT, MAX_BROWSERS * settings.PUSH_TIMEOUT) + 10
CLAIM = timedelta(seconds=SEND_TIME_LIMIT + 15)
# After a failure the row is due again after 30 s, then 1, 2, 4... minutes, at most 30.
FIRST_RETRY = timedelta(seconds=30)
LAST_RETRY = timedelta(minutes=30)
MAX_ATTEMPTS = 8
# The task queued after the commit sends a new row; the sweep queues it again only after this.
SWEEP_GRACE = timedelta(seconds=30)
SWEEP_BATCH = 200

Status = OutboxEmail.Status
Channel = OutboxEmail.Channel


class SendFailed(Exception):
    """A push sender's way of saying the service it sends through failed (refused, unreachable,
    timed out): the row is tried again after the back-off, as after an SMTP failure."""


@dataclass(frozen=True)
class Kind:
    """How the rows of one kind are sent, as the app that writes them registered it.

    `email(row)` builds the row's email, or returns None when it is no longer due (the row is
    dropped). `push(row)`, for rows of channel "push", sends it and returns "sent" or "dropped",
    or None when the recipient has no way left to take a push (the row goes as an email then);
    it raises SendFailed when it should be tried again later. It is called with the row claimed,
    and must not take longer than SEND_TIME_LIMIT."""

    email: Callable[[OutboxEmail], EmailMultiAlternatives | None]
    push: Callable[[OutboxEmail], str | None] | None = None


_kinds: dict[str, Kind] = {}


def register(kinds, email, push=None) -> None:
    """Say how rows of each of `kinds` are sent (an app's `ready()`: see `Kind`)."""
    for kind in kinds:
        _kinds[kind] = Kind(email=email, push=push)


def new_message_id() -> str:
    """A Message-ID of this site, made once per row, so that every send of it carries it."""
    return make_msgid(domain=urlsplit(settings.SITE_URL).hostname or "localhost")


# --- writing -----------------------------------------------------------------------------------


def add_message(message: EmailMessage) -> int:
    """Store an email made elsewhere (subject, text, HTML, recipients) to be sent as it is;
    return the row's id."""
    html = next(
        (
            content
            for content, mimetype in getattr(message, "alternatives", [])
            if mimetype == "text/html"
        ),
        "",
    )
    row = OutboxEmail.objects.create(
        kind=ACCOUNT,
        address=message.to[0] if message.to else "",
        data={
            "subject": message.subject,
            "text": message.body,
            "html": html,
            "from": message.from_email,
            "to": list(message.to),
            "headers": dict(message.extra_headers),
        },
        message_id=new_message_id(),
    )
    return row.pk


def send_after_commit(email_id: int) -> None:
    """Queue the send of a new row once the current transaction commits (at once outside one);
    if queueing fails, Django logs it and the sweep sends the row within a minute. The task is
    queued by name, as games/effects.py queues it: eagerly where the tests ask for it."""

    def queue() -> None:
        current_app.signature(SEND_TASK, args=(email_id,)).apply_async()

    transaction.on_commit(queue, robust=True)


# --- sending -----------------------------------------------------------------------------------


def send(email_id: int) -> str:
    """Send one row of the outbox if it is due and nobody else is sending it; return what
    became of it: "sent", "dropped", "retry", "failed" or "not due"."""
    now = timezone.now()
    claimed = (
        OutboxEmail.objects.filter(pk=email_id, status=Status.PENDING, due_at__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
        .update(claimed_until=now + CLAIM, attempts=F("attempts") + 1)
    )
    if not claimed:
        return "not due"  # sent, dropped, being sent, waiting out a back-off, or no such row
    email = OutboxEmail.objects.select_related("user").get(pk=email_id)
    if email.attempts > MAX_ATTEMPTS:  # its senders kept dying before they could say so
        return _failed(email, RuntimeError("no attempt finished"))
    kind = kind_of(email.kind)
    if email.channel == Channel.PUSH and kind is not None and kind.push is not None:
        pushed = _push(email, kind)
        if pushed is not None:
            return pushed
        # No way left to take a push (every browser unsubscribed since): an email after all.
        OutboxEmail.objects.filter(pk=email.pk).update(channel=Channel.EMAIL)
    try:
        message = build(email)
    except Exception as error:  # a bug: the row is tried again later, and given up in the end
        _failed(email, error)
        raise
    if message is None:
        _close(email, Status.DROPPED)
        return "dropped"
    try:
        message.send()
    except (smtplib.SMTPException, OSError) as error:  # smtplib's, refusals, time-outs
        return _failed(email, error)
    _close(email, Status.SENT)
    return "sent"


def build(email: OutboxEmail) -> EmailMultiAlternatives | None:
    """The email of a row, or None if it is no longer due."""
    kind = kind_of(email.kind)
    if kind is None:  # no app registered it: a bug, tried again and given up in the end
        raise LookupError(f"no sender registered for the outbox's kind {email.kind!r}")
    return kind.email(email)


def kind_of(kind: str) -> Kind | None:
    """How rows of `kind` are sent, or None if no app registered it."""
    return ACCOUNT_KIND if kind == ACCOUNT else _kinds.get(kind)


def _push(email: OutboxEmail, kind: Kind) -> str | None:
    """Send a claimed push row through its kind's push sender, as `send` sends an email."""
    try:
        outcome = kind.push(email)
    except SendFailed as error:
        return _failed(email, error)
    except Exception as error:  # a bug: the row is tried again later, and given up in the end
        _failed(email, error)
        raise
    if outcome is not None:
        _close(email, Status.SENT if outcome == "sent" else Status.DROPPED)
    return outcome


def _stored_message(email: OutboxEmail) -> EmailMultiAlternatives:
    data = email.data
    message = EmailMultiAlternatives(
        subject=data["subject"],
        body=data["text"],
        from_email=data.get("from") or None,
        to=data.get("to") or [email.address],
        headers={**data.get("headers", {}), "Message-ID": email.message_id},
    )
    if data.get("html"):
        message.attach_alternative(data["html"], "text/html")
    return message


ACCOUNT_KIND = Kind(email=_stored_message)  # this module's own kind: stored, sent as it is


def _close(email: OutboxEmail, status: str) -> None:
    changes = {"status": status, "claimed_until": None}
    if status == Status.SENT:
        changes["sent_at"] = timezone.now()
    if email.kind == ACCOUNT:
        changes["data"] = {}  # its links (confirmation, password reset) need not be kept
    OutboxEmail.objects.filter(pk=email.pk).update(**changes)


def _failed(email: OutboxEmail, error: Exception) -> str:
    attempts = email.attempts
    wait = min(FIRST_RETRY * 2 ** (min(attempts, MAX_ATTEMPTS) - 1), LAST_RETRY)
    gave_up = attempts >= MAX_ATTEMPTS
    logger.warning(
        "outbox: email %s (%s) not sent, attempt %d: %r%s",
        email.pk,
        email.kind,
        attempts,
        error,
        "; giving up" if gave_up else f"; again in {wait}",
    )
    OutboxEmail.objects.filter(pk=email.pk).update(
        status=Status.FAILED if gave_up else Status.PENDING,
        claimed_until=None,
        due_at=timezone.now() + wait,
        last_error=repr(error)[:200],
    )
    return "failed" if gave_up else "retry"


def due(now, limit: int = SWEEP_BATCH) -> list[int]:
    """Return the ids of rows to queue again: due, unclaimed or with an expired claim, and old
    enough that the task queued with them has had its turn. Oldest first."""
    return list(
        OutboxEmail.objects.filter(
            status=Status.PENDING, due_at__lte=now, created_at__lte=now - SWEEP_GRACE
        )
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
        .order_by("due_at")
        .values_list("pk", flat=True)[:limit]
    )
