"""A player's vacation days: how many are banked, and the vacations their clocks skip.

The rule (docs/rules.md, "Clocks, time controls and vacations"): every player starts with 30
days, earns 30 more a year (30/365 of a day each day, to the second), and banks at most 30. A
vacation lasts at most the days banked when it starts; it is charged as it passes, for the time
actually on vacation, and earns nothing meanwhile. It ends by itself at its end, or earlier when
the player ends it or makes a move.

Pure bookkeeping on the User row (the caller locks and saves it): games/play/vacations.py starts
and ends vacations and moves the clocks of the player's games, which accounts may not import.
"""

from datetime import datetime, timedelta

from django.utils import formats
from django.utils.translation import ngettext

BANK_CAP = timedelta(days=30)
EARNED_PER_DAY = 30 / 365  # days of vacation earned per day
# Ended vacations are remembered this long: a clock that began before one still skips it
# (the longest turn, a full Fischer bank of 30 days over weekends and a vacation, is shorter).
MEMORY = timedelta(days=100)


def on_vacation(user, now: datetime) -> bool:
    started, until = user.vacation_started_at, user.vacation_until
    return started is not None and until is not None and started <= now < until


def days_left(user, now: datetime) -> timedelta:
    """The vacation time the player may still take at `now`."""
    if user.vacation_started_at is not None and user.vacation_until is not None:
        spent = min(now, user.vacation_until) - user.vacation_started_at
        return max(user.vacation_days - max(spent, timedelta(0)), timedelta(0))
    earned = max(now - user.vacation_days_at, timedelta(0)) * EARNED_PER_DAY
    return min(user.vacation_days + earned, BANK_CAP)


def days_words(length: timedelta) -> str:
    """A number of vacation days to a tenth, rounded down: "30 days", "1 day", "12.4 days" (in
    the active language, its decimal separator too: "12,4 días")."""
    tenths = int(length / timedelta(days=1) * 10 + 1e-9)
    number = f"{tenths / 10:g}".replace(".", formats.get_format("DECIMAL_SEPARATOR"))
    # A whole number chooses its plural form; a fraction takes the form of 2 (English "0.5
    # days", "1.5 days"; as "other" does in the four languages of the site).
    count = tenths // 10 if tenths % 10 == 0 else 2
    return ngettext("%(number)s day", "%(number)s days", count) % {"number": number}


def breaks(user) -> tuple[tuple[datetime, datetime], ...]:
    """The vacations the player's clocks skip: the recent ones and the current one."""
    found = [
        (datetime.fromisoformat(start), datetime.fromisoformat(end))
        for start, end in user.past_vacations or ()
    ]
    if user.vacation_started_at is not None and user.vacation_until is not None:
        found.append((user.vacation_started_at, user.vacation_until))
    return tuple(found)


def begin(user, now: datetime, length: timedelta) -> None:
    """Start a vacation of `length` at `now` (the caller checked it is at most `days_left`)."""
    user.vacation_days = days_left(user, now)
    user.vacation_days_at = now
    user.vacation_started_at = now
    user.vacation_until = now + length


def end(user, now: datetime) -> tuple[datetime, datetime]:
    """End the current vacation at `now`, or at its end if that came first: charge the time
    taken and remember the vacation for the clocks. Return it as (start, end)."""
    started, ended = user.vacation_started_at, min(now, user.vacation_until)
    user.vacation_days = days_left(user, ended)
    user.vacation_days_at = ended
    user.vacation_started_at = user.vacation_until = None
    recent = [pair for pair in user.past_vacations or () if _ended_lately(pair, ended)]
    user.past_vacations = [*recent, [started.isoformat(), ended.isoformat()]]
    return started, ended


def _ended_lately(pair, now: datetime) -> bool:
    return datetime.fromisoformat(pair[1]) > now - MEMORY
