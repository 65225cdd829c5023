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
- a computer player that should have acted and has not (its task was lost) is woken, and so is
  the server's stand-in for a player who left;
- a game that ended a while ago without its post-game analysis is analysed.
"""

from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.db.models import Q

from games.models import Game, Seat, waiting_for_move, waiting_for_stand_in
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


class Stalled(NamedTuple):
    """A computer player's move, or the server's stand-in's for a player who left
    (`bot_id` None), that its game has waited for too long."""

    game_id: int
    bot_id: int | None
    version: int
    seat_number: int


def stalled_bots(now: datetime, limit: int = SWEEP_BATCH) -> list[Stalled]:
    """Return the computer players, and the seats the server's stand-in plays for players who
    left, whose move their game has waited for since more than BOT_SWEEP_GRACE (their task was
    lost): one query."""
    grace = getattr(settings, "BOT_SWEEP_GRACE", BOT_SWEEP_GRACE)
    rows = (
        Seat.objects.filter(
            Q(waiting_for_move(), user__bot_level__isnull=False) | waiting_for_stand_in(),
            game__turn_started_at__lte=now - grace,
        )
        .order_by("game__turn_started_at")
        .values_list("game_id", "user_id", "game__version", "number", "left")[:limit]
    )
    return [
        Stalled(game_id, None if left else user_id, version, number)
        for game_id, user_id, version, number, left in rows
    ]


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
