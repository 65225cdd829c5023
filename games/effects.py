"""What happens after a change has committed: queued work, pushes and emails.

Called from games/actions.py inside `transaction.on_commit`, so nothing here runs for a change
that rolled back, and a failure here never undoes a move: a task that cannot be queued (the
broker is down) is logged, and the periodic sweep (games/tasks.py) does the timed work anyway.
"""

import logging

from games.live import pushes as live
from games.live.changes import Change

logger = logging.getLogger(__name__)


def after_play(
    change: Change,
    *,
    forced_take_due: bool,
    wake: list[tuple[int, int]],
    seat: int | None = None,
    game=None,
    seats=None,
) -> None:
    """After a rules event (by `seat`): push what it changed, queue the forced take if one is
    due, and wake the bots it hands something to do (`wake`: (bot user id, version), worked out
    in the transaction by games/bots.py `due_after`). `game` and `seats` are the game as the
    transaction left it, which this process's pushes draw instead of reading it again."""
    # First the push of this version, so that pages get the versions in order when the forced
    # take below runs at once (an eager task) and pushes the next one.
    live.game_changed(change, game=game, seats=seats)
    game_id = change.game_id
    if forced_take_due:
        from games.tasks import take_last_tile

        try:
            take_last_tile.delay(game_id)
        except Exception:
            logger.exception("Cannot queue the forced take of game %s; the sweep will.", game_id)
    wake_bots(game_id, kind=change.kind, seat=seat, forced_take_due=forced_take_due, due=wake)


def after_start(game_id: int, version: int) -> None:
    """After a game started: wake the bot whose turn it is, if the first seat is a bot's."""
    wake_bots(game_id, kind="started", seat=None, forced_take_due=False)


def refresh_badges(game_id: int, user_ids) -> None:
    """Have these players' open pages count their waiting games again (never raises)."""
    live.refresh_badges(game_id, user_ids)


def after_end(game_id: int) -> None:
    """After a game ended: queue its post-game analysis (the sweep queues it if this fails)."""
    from games.tasks import analyse_game

    try:
        analyse_game.delay(game_id)
    except Exception:
        logger.exception("Cannot queue the analysis of game %s; the sweep will.", game_id)


def wake_bots(
    game_id: int,
    *,
    kind: str,
    seat: int | None,
    forced_take_due: bool,
    due: list[tuple[int, int]] | None = None,
) -> None:
    """Queue the moves of the bots that the committed change hands something to do: `due`
    ((bot user id, version), known to the change) or, without it, read from the database."""
    from games.bots import turns as bots

    if due is None:
        try:
            due = bots.bots_to_wake(game_id, kind=kind, seat=seat, forced_take_due=forced_take_due)
        except Exception:
            logger.exception("Cannot find the bots to wake in game %s; the sweep will.", game_id)
            return
    if due:
        bots.queue_moves([(game_id, user_id, version) for user_id, version in due])


def notify(notices, *, game=None, seats=None) -> None:
    """Push each notice to its recipients' open pages, and queue one email task per recipient
    who may get that email (games/notifications.py decides when the task runs).

    `game` and `seats` (with their users), when the change that made the notices has them, spare
    reading them again. A recipient whose own settings refuse the email (a bot, no address,
    that kind switched off, the digest instead), or who is watching the game now, gets no
    task: it would be dropped (the task checks both again when it runs)."""
    from games.notices.notice import watching_recipients
    from games.tasks import send_notice

    users = _recipients(notices, seats)
    if users is not None:  # else the database cannot be read now: nor could a notice be drawn
        live.push_notices(notices, users=users, game=game, seats=seats)  # at once, never raises
    emailed = [
        (notice, user_id)
        for notice in notices
        for user_id in notice.user_ids
        if users is None or _may_email(users.get(user_id), notice)
    ]
    # Only for those still due an email (no round trip when none is, as in a game of bots).
    watching = watching_recipients(emailed)  # never raises: nobody, when it cannot be read
    for notice, user_id in emailed:
        if (notice.game_id, user_id) in watching:
            continue
        try:
            send_notice.delay(
                notice.kind, notice.game_id, user_id, notice.version, notice.data or None
            )
        except Exception:
            logger.exception(
                "Cannot queue the %s email of game %s to user %s.",
                notice.kind,
                notice.game_id,
                user_id,
            )


def _recipients(notices, seats) -> dict | None:
    """{user id: user} of every recipient, for the pushes and the emails: from `seats` when they
    have them all, else read in one query; None if they cannot be read (then no notice is
    pushed, and every email task is queued, to decide when it runs)."""
    wanted = {user_id for notice in notices for user_id in notice.user_ids}
    if seats is not None:
        known = {seat.user_id: seat.user for seat in seats}
        if wanted <= known.keys():
            return known
    from accounts.models import User

    try:
        return {user.pk: user for user in User.objects.filter(pk__in=wanted)}
    except Exception:
        logger.exception("Cannot read the recipients of %d notice(s).", len(notices))
        return None


def _may_email(user, notice) -> bool:
    """Whether the email task of `notice` could send to `user`: false only when the user's own
    settings refuse it, as the task would find (notifications.send_notice)."""
    from games.notices.notice import wanted

    return user is not None and wanted(user, notice.kind, notice.data)
