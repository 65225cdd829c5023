"""What happens after a change has committed: queued work, pushes and emails.

Called from games/actions.py inside `transaction.on_commit`, so nothing here runs for a change
that rolled back, and a failure here never undoes a move: a task that cannot be queued (the
broker is down) is logged, and the periodic sweep (games/tasks.py) does the timed work anyway.
"""

import logging

from . import live
from .changes import Change

logger = logging.getLogger(__name__)


def after_play(change: Change, *, forced_take_due: bool, seat: int | None = None) -> None:
    """After a rules event (by `seat`): push what it changed, queue the forced take if one is
    due, and wake the bots the change hands something to do."""
    # First the push of this version, so that pages get the versions in order when the forced
    # take below runs at once (an eager task) and pushes the next one.
    live.game_changed(change)
    game_id, kind = change.game_id, change.kind
    if forced_take_due:
        from .tasks import take_last_tile

        try:
            take_last_tile.delay(game_id)
        except Exception:
            logger.exception("Cannot queue the forced take of game %s; the sweep will.", game_id)
    wake_bots(game_id, kind=kind, seat=seat, forced_take_due=forced_take_due)


def after_start(game_id: int, version: int) -> None:
    """After a game started: wake the bot whose turn it is, if the first seat is a bot's."""
    wake_bots(game_id, kind="started", seat=None, forced_take_due=False)


def after_end(game_id: int) -> None:
    """After a game ended: queue its post-game analysis (the sweep queues it if this fails)."""
    from .tasks import analyse_game

    try:
        analyse_game.delay(game_id)
    except Exception:
        logger.exception("Cannot queue the analysis of game %s; the sweep will.", game_id)


def wake_bots(game_id: int, *, kind: str, seat: int | None, forced_take_due: bool) -> None:
    from . import bots

    try:
        due = bots.bots_to_wake(game_id, kind=kind, seat=seat, forced_take_due=forced_take_due)
    except Exception:
        logger.exception("Cannot find the bots to wake in game %s; the sweep will.", game_id)
        return
    bots.queue_moves([(game_id, user_id, version) for user_id, version in due])


def notify(notices) -> None:
    """Queue one email task per recipient of each notice (games/notifications.py decides)."""
    from .tasks import send_notice

    live.push_notices(notices)  # to the players' open pages, at once (never raises)
    for notice in notices:
        for user_id in notice.user_ids:
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
