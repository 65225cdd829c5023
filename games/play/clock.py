"""The clocks of a game: when each player's time runs out and is reminded of, and what the
sweep finds due.

Each player's clock is their own (docs/rules.md, "Clocks, time controls and vacations"): it
counts from the start of the turn (or of the finishing phase) on that player's calendar, which
skips their vacations and, at a table with weekends off, their Saturdays and Sundays
(games/timekeeping.py). What it counts down is the seat's allowance: the time per move, a
Fischer bank (`Seat.bank`, spent while the game waits for the seat's draft, the increment added
at its confirmation, up to the cap), or in the finishing phase the table's finishing time, the
same for everyone. So every deadline is a pure function of the turn's start, the allowance and
the calendar, and a vacation that begins or ends just counts it again (`recount`).

Where the clock is kept: while drafting the game waits for one seat, whose deadline and reminder
are the game's own `deadline` and `remind_at` (no seat row is written as the turn passes); in the
finishing phase each unfinished seat has its own (`Seat.deadline`, `Seat.remind_at`) and the
game's are the earliest of them. The sweep reads the game's alone.

The sweep (games.tasks.sweep, run by Celery beat) is the one thing that keeps every game moving:
it does not trust that any task queued earlier still exists. Each query below reads one index
and returns at most `limit` rows, oldest first, so that a backlog is worked off over a few
sweeps instead of in one long one:

- a turn whose deadline has passed is timed out (the server drafts for the player);
- a turn that began with a forced take has its deadline at its start, so a forced take whose
  task was lost is simply an overdue turn (a forced take is the server's move: it is due at
  once even for a player on vacation);
- a finishing phase whose earliest deadline has passed submits the boards that are due;
- a reminder whose time has come is sent, once: the game row (or the seat's) remembers it;
- a computer player that should have acted and has not (its task was lost) is woken, and so is
  the server's stand-in for a player who left;
- a game that ended a while ago without its post-game analysis is analysed;
- a vacation that ran out is ended (its days charged, the players' pages redrawn).
"""

from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.db.models import Q

from accounts.models import User
from games.models import Game, Seat, waiting_for_move, waiting_for_stand_in
from games.rules import DRAFTING, FINISHING, Action, ConfirmDraft, Transition

SWEEP_BATCH = 200
# The analysis task is queued when a game ends; the sweep queues it again after this long.
ANALYSIS_GRACE = timedelta(minutes=5)
# ... for games that ended at most this long ago (older games are left as they are).
ANALYSIS_WINDOW = timedelta(days=1)
# The reminder goes out when this share of the player's time for the turn is left ...
REMINDER_SHARE = 0.2
# ... but with a Fischer bank, at the latest when this much is left (a full bank of weeks would
# otherwise be reminded of days ahead).
FISCHER_REMINDER_LEAD = timedelta(days=1)
# How long a bot's turn (or its finishing) may wait before the sweep queues its move again.
BOT_SWEEP_GRACE = timedelta(seconds=60)


def allowance(game: Game, seat: Seat, phase: str) -> timedelta:
    """The counting time `seat` has for the current turn (or for the finishing phase)."""
    if phase == FINISHING:
        return game.finishing_period
    if game.fischer:
        return seat.bank if seat.bank is not None else game.fischer_bank
    return game.time_per_move


def reminder_lead(game: Game, amount: timedelta, phase: str) -> timedelta:
    """How much of a turn's `amount` is left when its reminder goes out."""
    lead = amount * REMINDER_SHARE
    if game.fischer and phase == DRAFTING:
        lead = min(lead, FISCHER_REMINDER_LEAD)
    return lead


def seat_clock(
    game: Game, seat: Seat, phase: str, *, remind: bool = True
) -> tuple[datetime, datetime | None]:
    """Return (deadline, reminder time) of `seat`'s clock, counted from the turn's start on its
    player's calendar; no reminder unless `remind` (one was sent already this turn)."""
    calendar = game.calendar(seat.user)
    amount = allowance(game, seat, phase)
    deadline = calendar.after(game.turn_started_at, amount)
    lead = reminder_lead(game, amount, phase)
    remind_at = calendar.after(game.turn_started_at, amount - lead) if remind and lead else None
    return deadline, remind_at


def open_turn(
    game: Game, seats: list[Seat], now: datetime, *, forced_take_due: bool = False
) -> None:
    """Start the time of a drafting turn for the game's current seat; the caller saves the game.

    A turn that begins with a forced take is due at once, with no reminder: the server takes
    the tile right away (the task queued after commit, or else the sweep), vacation or not.
    """
    game.turn_started_at = now
    if forced_take_due:
        game.deadline, game.remind_at = now, None
    else:
        game.deadline, game.remind_at = seat_clock(game, seats[game.current_seat], DRAFTING)


def follow(
    game: Game, seats: list[Seat], mover: Seat, action: Action, moved: Transition, now: datetime
) -> set[int]:
    """Set the clocks as `mover`'s `action` leaves the game (the rules' transition `moved`): a
    completed draft adds a Fischer increment to what is left of the bank; a new turn starts its
    time; the finishing phase starts every player's finishing time; a finished board stops its
    player's; the end stops them all. Return the numbers of the seats whose clock fields
    changed; the caller saves them and the game."""
    clocked = set()
    if game.fischer and moved.phase_before == DRAFTING and isinstance(action, ConfirmDraft):
        mover.bank = bank_after_draft(game, mover, now)
        clocked.add(mover.number)
    if moved.new_turn:
        open_turn(game, seats, now, forced_take_due=moved.forced_take_due)
    elif moved.finishing_began:
        game.turn_started_at = now
        for seat in seats:
            if not seat.finished:
                seat.deadline, seat.remind_at = seat_clock(game, seat, FINISHING)
                clocked.add(seat.number)
        _earliest(game, seats)
    elif moved.ended:
        game.deadline = game.remind_at = None
        clocked |= _stop(seats)
    elif moved.phase == FINISHING and moved.waiting_changed:  # a board finished
        clocked |= _stop([seat for seat in seats if seat.number not in moved.waiting])
        _earliest(game, seats)
    return clocked


def bank_after_draft(game: Game, seat: Seat, now: datetime) -> timedelta:
    """A Fischer bank after the seat's draft is confirmed (by them or, their time up, by the
    server): what was left of it, plus the increment, at most the cap."""
    spent = game.calendar(seat.user).counted(game.turn_started_at, now)
    left = max(allowance(game, seat, DRAFTING) - spent, timedelta(0))
    return min(left + game.fischer_increment, game.fischer_cap)


def recount(game: Game, seats: list[Seat], *, forced_take_due: bool) -> set:
    """Count the running clocks again, as their players' calendars are now (a vacation began or
    ended): the drafter's, or every unfinished seat's; a reminder already sent stays sent.
    Return the numbers of the seats whose clock fields changed; the caller saves them."""
    if not game.is_playing or forced_take_due:  # a forced take is due at once, vacation or not
        return set()
    if game.phase == DRAFTING:
        seat = seats[game.current_seat]
        remind = game.remind_at is not None
        game.deadline, game.remind_at = seat_clock(game, seat, DRAFTING, remind=remind)
        return set()
    clocked = set()
    for seat in seats:
        if seat.finished:
            continue
        counted = seat_clock(game, seat, FINISHING, remind=seat.remind_at is not None)
        if counted != (seat.deadline, seat.remind_at):
            seat.deadline, seat.remind_at = counted
            clocked.add(seat.number)
    _earliest(game, seats)
    return clocked


def late_seats(game: Game, seats: list[Seat], now: datetime) -> list[Seat]:
    """The unfinished seats of a finishing phase whose own finishing time has run out."""
    return [seat for seat in seats if not seat.finished and (seat.deadline or game.deadline) <= now]


def remind_seats(game: Game, seats: list[Seat], now: datetime) -> list[Seat]:
    """Take the reminders due now off the clocks (the caller sends them and saves): the drafter,
    or the unfinished seats whose reminder is due. Return those seats."""
    if game.phase == DRAFTING:
        game.remind_at = None
        return [seats[game.current_seat]]
    due = [
        seat
        for seat in seats
        if not seat.finished and seat.remind_at is not None and seat.remind_at <= now
    ]
    for seat in due:
        seat.remind_at = None
    _earliest(game, seats)
    return due


def _earliest(game: Game, seats: list[Seat]) -> None:
    """The game's deadline and reminder in the finishing phase: the earliest of the seats'."""
    running = [seat for seat in seats if not seat.finished]
    deadlines = [seat.deadline for seat in running if seat.deadline is not None]
    reminders = [seat.remind_at for seat in running if seat.remind_at is not None]
    game.deadline = min(deadlines, default=None)
    game.remind_at = min(reminders, default=None)


def _stop(seats: list[Seat]) -> set:
    stopped = set()
    for seat in seats:
        if seat.deadline is not None or seat.remind_at is not None:
            seat.deadline = seat.remind_at = None
            stopped.add(seat.number)
    return stopped


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
    lost), the longest waiting first.

    Two queries, each on a partial index of the seats not finished (games.models.Seat): the
    computer players' seats, and those of players who left; so the sweep reads the seats the
    server may owe a move, not every game in progress (a seat waited for is never finished)."""
    grace = getattr(settings, "BOT_SWEEP_GRACE", BOT_SWEEP_GRACE)
    stalled = Q(finished=False, game__turn_started_at__lte=now - grace)
    columns = ("game__turn_started_at", "game_id", "user_id", "game__version", "number", "left")
    bots = list(User.objects.filter(bot_level__isnull=False).values_list("pk", flat=True))
    owed = [waiting_for_stand_in()] + ([Q(waiting_for_move(), user_id__in=bots)] if bots else [])
    found = []
    for seats in owed:
        rows = Seat.objects.filter(seats, stalled).order_by("game__turn_started_at")
        found += rows.values_list(*columns)[:limit]
    found.sort(key=lambda row: (row[0], row[1]))
    return [
        Stalled(game_id, None if left else user_id, version, number)
        for _, game_id, user_id, version, number, left in found[:limit]
    ]


def vacations_over(now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    """Return the ids of players whose vacation ran out and is not ended yet."""
    return list(
        User.objects.filter(vacation_until__lte=now)
        .order_by("vacation_until")
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
