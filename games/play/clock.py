"""The clock of a game: when a turn runs out and is reminded of, and what the sweep finds due.

A turn's time starts when it begins (`follow`, as the rules say the turn passed), and so does
the finishing phase's. The sweep (games.tasks.sweep, run by Celery beat) is the one thing that
keeps every game moving: it does not trust that any task queued earlier still exists. Each query
below reads one index and returns at most `limit` rows, oldest first, so that a backlog is worked
off over a few sweeps instead of in one long one:

- a turn whose deadline has passed is timed out (the server drafts for the player);
- a turn that began with a forced take has its deadline at its start, so a forced take whose
  task was lost is simply an overdue turn;
- a finishing phase whose deadline has passed submits every unfinished board;
- a reminder whose time has come is sent, once: the game row remembers it;
- a computer player that should have acted and has not (its task was lost) is woken;
- a game that ended a while ago without its post-game analysis is analysed.
"""

from datetime import datetime, timedelta

from django.conf import settings

from games.models import Game, Seat, waiting_for_move
from games.rules import Transition

SWEEP_BATCH = 200
# The analysis task is queued when a game ends; the sweep queues it again after this long.
ANALYSIS_GRACE = timedelta(minutes=5)
# ... for games that ended at most this long ago (older games are left as they are).
ANALYSIS_WINDOW = timedelta(days=1)
# The reminder goes out when this share of the time per move is left.
REMINDER_SHARE = 0.2
# How long a bot's turn (or its finishing) may wait before the sweep queues its move again.
BOT_SWEEP_GRACE = timedelta(seconds=60)


def reminder_time(deadline: datetime, time_per_move: timedelta) -> datetime:
    """Return when a turn that ends at `deadline` should be reminded of."""
    return deadline - time_per_move * REMINDER_SHARE


def open_turn(game: Game, now: datetime, *, forced_take_due: bool = False) -> None:
    """Start the time of a turn (or of the finishing phase); the caller saves the game.

    A turn that begins with a forced take is due at once, with no reminder: the server takes
    the tile right away (the task queued after commit, or else the sweep).
    """
    game.turn_started_at = now
    if forced_take_due:
        game.deadline, game.remind_at = now, None
    else:
        game.deadline = now + game.time_per_move
        game.remind_at = reminder_time(game.deadline, game.time_per_move)


def follow(game: Game, moved: Transition, now: datetime) -> None:
    """Set the clock as the rules' transition `moved` leaves the game: a new turn starts its
    time; the finishing phase gives every player one more period of the same length; the end
    stops it. The caller saves the game."""
    if moved.new_turn:
        open_turn(game, now, forced_take_due=moved.forced_take_due)
    elif moved.finishing_began:
        open_turn(game, now)
    elif moved.ended:
        game.deadline = game.remind_at = None


# --- what the sweep finds due ------------------------------------------------------------------


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


def stalled_bots(now: datetime, limit: int = SWEEP_BATCH) -> list[tuple[int, int, int]]:
    """Return (game id, bot user id, version) of computer players whose move their game has
    waited for since more than BOT_SWEEP_GRACE (their task was lost)."""
    grace = getattr(settings, "BOT_SWEEP_GRACE", BOT_SWEEP_GRACE)
    return list(
        Seat.objects.filter(
            waiting_for_move(),
            user__bot_level__isnull=False,
            game__turn_started_at__lte=now - grace,
        )
        .order_by("game__turn_started_at")
        .values_list("game_id", "user_id", "game__version")[:limit]
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
