"""The email outbox: every email is first a row, written in the transaction of what caused it,
then sent by a task: at least once, never twice once it is marked sent, and never an hour late.

Writing, inside the change's transaction (its rows are queued by games/effects.py after the
commit, the task `games.send_email`, one per row):

- `add_notices`: a row for each recipient of a notice who may get its email now
  (games/notices/notice.py: their settings ask for it, no "your move" of the game is unread,
  and they are not watching the game; a timeout or the end, for a watcher, is written due
  WATCHER_DELAY later and dropped then if they saw it);
- `add_message`: an email made elsewhere, stored as it is (allauth's account emails,
  accounts/adapter.py);
- `add_digests`: the daily digests (at most one row per reader and local date).

Sending (`send`): the task claims the row until `CLAIM` from now, longer than a send may take (the
task's hard time limit, `SEND_TIME_LIMIT`), so that the sweep leaves a row being sent alone; builds
the message, or drops the row if it is no longer due (the player moved, watches the game or has
looked at it since, switched that email off); sends it with the row's own Message-ID; marks it
sent. When the SMTP server fails (or the message cannot be built), the row is released and due
again after a back-off; after MAX_ATTEMPTS attempts, finished or not, it is marked failed. A
sender killed in the middle leaves its claim to run out, and the sweep (`due`, run every minute
by games.sweep) queues the row again: a message the server had already accepted is sent once
more with the same Message-ID, which mail clients show once. The sweep also sends a watcher's
delayed row once it is due.

A row of channel "push" is a notice sent as Web Push instead (games/notices/webpush.py), by the
same task, claims and back-off; with no subscribed browser left when its turn comes, it is sent
as an email.
"""

import logging
import smtplib
from datetime import timedelta
from email.utils import make_msgid
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db.models import F, Q
from django.utils import timezone

from games import presence
from games.models import OutboxEmail, Seat
from games.notices import webpush
from games.notices.digest import digest_message
from games.notices.emails import as_recipient, notice_context, notice_message
from games.notices.notice import (
    DIGEST,
    HELD_UNTIL_SEEN,
    ONE_UNREAD,
    WATCHED,
    WATCHER_DELAY,
    Notice,
    held_while_watching,
    unread_move,
    wanted,
)

logger = logging.getLogger(__name__)

ACCOUNT = "account"
# The send task's hard time limit: connecting, the exchange and quitting each wait at most
# EMAIL_TIMEOUT for the server (a push, PUSH_TIMEOUT for each of its browsers); Celery kills the
# task past this.
SEND_TIME_LIMIT = max(2 * settings.EMAIL_TIMEOUT, webpush.MAX_BROWSERS * settings.PUSH_TIMEOUT) + 10
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


def new_message_id() -> str:
    """A Message-ID of this site, made once per row, so that every send of it carries it."""
    return make_msgid(domain=urlsplit(settings.SITE_URL).hostname or "localhost")


# --- writing -----------------------------------------------------------------------------------


def add_notices(notices: list[Notice], users: dict, seats=(), watching=None) -> list[int]:
    """Write the email of each notice for each of its recipients who may get it now (`users`:
    the recipients by id; `seats`: the game's seats, as the change has them); return the ids of
    the new rows due now (a watcher's delayed row is left to the sweep). One query, one presence
    read per game (`watching(game_id, user_ids)`, presence.watching or a change's own that keeps
    what it read), and one UPDATE of the seats whose "your move" is written (ONE_UNREAD)."""
    seat_of = {(seat.game_id, seat.user_id): seat for seat in seats}
    due = [
        (notice, users[user_id])
        for notice in notices
        for user_id in notice.user_ids
        if user_id in users
        and wanted(users[user_id], notice.kind, notice.data)
        and not (notice.kind in ONE_UNREAD and unread_move(seat_of.get((notice.game_id, user_id))))
    ]
    watched = _watching(due, watching or presence.watching)
    pushed = _pushed(user for _, user in due)
    later = timezone.now() + WATCHER_DELAY
    rows, notified = [], []
    for notice, user in due:
        row = OutboxEmail(
            kind=notice.kind,
            user=user,
            game_id=notice.game_id,
            version=notice.version,
            data=notice.data or {},
            message_id=new_message_id(),
            channel=Channel.PUSH if user.pk in pushed else Channel.EMAIL,
        )
        if (notice.game_id, user.pk) in watched:
            if notice.kind not in HELD_UNTIL_SEEN:
                continue  # their page shows it
            # Their page shows it too, but they may leave before it does: sent if they do.
            row.due_at, row.data = later, {**row.data, WATCHED: True}
        rows.append(row)
        seat = seat_of.get((notice.game_id, user.pk))
        if notice.kind in ONE_UNREAD and seat is not None:
            notified.append((seat, notice.version))
    if not rows:
        return []
    OutboxEmail.objects.bulk_create(rows)
    _mark_notified(notified)
    return [row.pk for row in rows if not row.data.get(WATCHED)]


def _mark_notified(notified: list[tuple]) -> None:
    """Record on each seat the version of the "your move" just written for it."""
    by_version: dict[int, list] = {}
    for seat, version in notified:
        seat.notified_version = version
        by_version.setdefault(version, []).append(seat.pk)
    for version, pks in by_version.items():  # one version, in every change there is
        Seat.objects.filter(pk__in=pks).update(notified_version=version)


def _watching(due, watching) -> set[tuple[int, int]]:
    """(game id, user id) of the recipients who have the game open now, of those whose email
    would be held back then: their pages show it, so no row is written (or, for HELD_UNTIL_SEEN,
    one due later)."""
    by_game: dict[int, set[int]] = {}
    for notice, user in due:
        if held_while_watching(notice.kind):
            by_game.setdefault(notice.game_id, set()).add(user.pk)
    return {
        (game_id, user_id)
        for game_id, user_ids in by_game.items()
        for user_id in watching(game_id, user_ids)  # nobody, if it cannot be read
    }


def _pushed(users) -> set[int]:
    """The ids of the recipients whose notices go as Web Push instead of email: they asked for
    it and have a subscribed browser (games/notices/webpush.py). No query if nobody asked."""
    asked = {user.pk for user in users if getattr(user, "push_instead_of_email", False)}
    return webpush.has_browsers(asked) if asked else set()


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


def add_digests(readers: list[tuple[int, str]]) -> list[int]:
    """Write the digest of each (user id, local date) not written before; return the ids of
    the digests of these readers still waiting to be sent."""
    keys = {f"digest:{user_id}:{day}": (user_id, day) for user_id, day in readers}
    rows = [
        OutboxEmail(
            kind=DIGEST, user_id=user_id, data={"date": day}, key=key, message_id=new_message_id()
        )
        for key, (user_id, day) in keys.items()
    ]
    OutboxEmail.objects.bulk_create(rows, ignore_conflicts=True)  # once per reader and day
    return list(
        OutboxEmail.objects.filter(key__in=keys, status=Status.PENDING).values_list("pk", flat=True)
    )


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
    email = OutboxEmail.objects.select_related("user", "game").get(pk=email_id)
    if email.attempts > MAX_ATTEMPTS:  # its senders kept dying before they could say so
        return _failed(email, RuntimeError("no attempt finished"))
    if email.channel == Channel.PUSH:
        if webpush.has_browsers([email.user_id]):
            return _push(email)
        # Every browser unsubscribed since: the notice goes as an email after all.
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


def _push(email: OutboxEmail) -> str:
    """Send a claimed push row (games/notices/webpush.py), as `send` sends an email."""
    try:
        with as_recipient(email.user):  # its words in their language, as an email's would be
            context = notice_context(email)
            message = webpush.payload(email, context) if context is not None else None
    except Exception as error:  # a bug: the row is tried again later, and given up in the end
        _failed(email, error)
        raise
    if message is None:
        _close(email, Status.DROPPED)
        return "dropped"
    try:
        delivered = webpush.deliver(email, message)
    except webpush.PushFailed as error:
        return _failed(email, error)
    _close(email, Status.SENT if delivered else Status.DROPPED)  # none: every browser gone
    return "sent" if delivered else "dropped"


def build(email: OutboxEmail) -> EmailMultiAlternatives | None:
    """The message of a row, or None if it is no longer due."""
    if email.kind == ACCOUNT:
        return _stored_message(email)
    if email.kind == DIGEST:
        return digest_message(email)
    return notice_message(email)


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
