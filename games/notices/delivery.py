"""The games' notices in the site's outbox (infra/outbox.py): the rows a change writes for them,
and how the outbox sends each.

Writing, inside the change's transaction (its rows are queued by games/effects.py after the
commit, the task `infra.send_email`, one per row):

- `add_notices`: a row for each recipient of a notice who may get its email now
  (games/notices/notice.py: their settings ask for it, no "your move" of the game is unread,
  and they are not watching the game; a timeout or the end, for a watcher, is written due
  WATCHER_DELAY later and dropped then if they saw it);
- `add_digests`: the daily digests (at most one row per reader and local date).

Sending: `register` (games/apps.py, at start-up) tells the outbox how a row of each kind
becomes its message when its turn comes, after the same checks again: a notice's email
(games/notices/emails.py) or Web Push (`push`, games/notices/webpush.py), a digest
(games/notices/digest.py).
"""

from django.utils import timezone

from games import presence
from games.models import Seat
from games.notices import webpush
from games.notices.digest import digest_message
from games.notices.emails import as_recipient, notice_context, notice_message
from games.notices.notice import (
    DIGEST,
    HELD_UNTIL_SEEN,
    ONE_UNREAD,
    PREFERENCE,
    WATCHED,
    WATCHER_DELAY,
    Notice,
    held_while_watching,
    unread_move,
    wanted,
)
from infra import outbox
from infra.models import OutboxEmail

Status = OutboxEmail.Status
Channel = OutboxEmail.Channel
# Every kind of notice (a row of one is sent as an email or a Web Push); the digest is its own.
NOTICE_KINDS = tuple(kind for kind in PREFERENCE if kind != DIGEST)


def register() -> None:
    """Tell the outbox how the rows of the games' kinds are sent (games/apps.py)."""
    outbox.register(NOTICE_KINDS, email=notice_message, push=push)
    outbox.register([DIGEST], email=digest_message)


def push(row: OutboxEmail) -> str | None:
    """Send a notice's row as Web Push to its player's browsers (the outbox has claimed it):
    "sent", or "dropped" when it is no longer due or no browser took it; None when the player
    has no subscribed browser left (then it goes as an email); webpush.PushFailed (the outbox's
    SendFailed) to try again later."""
    if not webpush.has_browsers([row.user_id]):
        return None
    with as_recipient(row.user):  # its words in their language, as an email's would be
        context = notice_context(row)
        message = webpush.payload(row, context) if context is not None else None
    if message is None:
        return "dropped"
    return "sent" if webpush.deliver(row, message) else "dropped"  # none: every browser gone


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
            message_id=outbox.new_message_id(),
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


def add_digests(readers: list[tuple[int, str]]) -> list[int]:
    """Write the digest of each (user id, local date) not written before; return the ids of
    the digests of these readers still waiting to be sent."""
    keys = {f"digest:{user_id}:{day}": (user_id, day) for user_id, day in readers}
    rows = [
        OutboxEmail(
            kind=DIGEST,
            user_id=user_id,
            data={"date": day},
            key=key,
            message_id=outbox.new_message_id(),
        )
        for key, (user_id, day) in keys.items()
    ]
    OutboxEmail.objects.bulk_create(rows, ignore_conflicts=True)  # once per reader and day
    return list(
        OutboxEmail.objects.filter(key__in=keys, status=Status.PENDING).values_list("pk", flat=True)
    )
