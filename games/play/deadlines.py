"""What the periodic sweep looks for, and the clock of a turn.

The sweep (games.tasks.sweep, run by Celery beat) is the one thing that keeps every game moving:
it does not trust that any task queued earlier still exists. Each query below reads one index,
(status, deadline) or (status, remind_at), and returns at most `limit` rows, oldest first, so a
backlog is worked off over a few sweeps instead of in one long one.

- A turn whose deadline has passed is timed out (the server drafts for the player).
- A turn that began with a forced take has its deadline at its start, so a forced take whose
  task was lost is simply an overdue turn.
- A finishing phase whose deadline has passed submits every unfinished board.
- A reminder whose time has come is sent, once: the game row remembers it.
- A bot that should have acted and has not (its task was lost) is woken (games/bots.py).
- A game that ended a while ago without its post-game analysis is analysed.
"""

from datetime import datetime, timedelta

from games.models import Game

SWEEP_BATCH = 200
# The analysis task is queued when a game ends; the sweep queues it again after this long.
ANALYSIS_GRACE = timedelta(minutes=5)
# ... for games that ended at most this long ago (older games are left as they are).
ANALYSIS_WINDOW = timedelta(days=1)
# The reminder goes out when this share of the time per move is left.
REMINDER_SHARE = 0.2


def reminder_time(deadline: datetime, time_per_move: timedelta) -> datetime:
    """Return when a turn that ends at `deadline` should be reminded of."""
    return deadline - time_per_move * REMINDER_SHARE


def overdue(now: datetime, limit: int = SWEEP_BATCH) -> list[tuple[int, int, str]]:
    """Return (game id, version, phase) of games in play whose deadline has passed."""
    return list(
        Game.objects.filter(status=Game.Status.PLAYING, deadline__lte=now)
        .order_by("deadline")
        .values_list("pk", "version", "phase")[:limit]
    )


def reminders_due(now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    """Return the ids of games in play whose reminder is due."""
    return list(
        Game.objects.filter(status=Game.Status.PLAYING, remind_at__lte=now)
        .order_by("remind_at")
        .values_list("pk", flat=True)[:limit]
    )


def analyses_due(now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    """Return the ids of games that ended more than ANALYSIS_GRACE ago (within ANALYSIS_WINDOW)
    and are not analysed yet."""
    return list(
        Game.objects.filter(
            status=Game.Status.ENDED,
            ended_at__lte=now - ANALYSIS_GRACE,
            ended_at__gte=now - ANALYSIS_WINDOW,
            seats__best_score__isnull=True,
        )
        .order_by("ended_at")
        .values_list("pk", flat=True)
        .distinct()[:limit]
    )
