"""Counting time: a player's clock runs except on their weekends (a table option) and their
vacations. Pure: no database, no Django; games/play/clock.py and the pages call it.

A `Calendar` is one player's at one table: their time zone, whether the table stops the clocks
on Saturdays and Sundays (from Saturday 00:00 to Monday 00:00 in that zone, whatever the
daylight-saving changes make of their length), and their vacations as (start, end) instants.
Every instant given and returned is aware; the results are in UTC, where arithmetic is plain
(two datetimes of one ZoneInfo subtract as wall times, which is wrong across a DST change).
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

ZERO = timedelta(0)
WEEK = timedelta(days=7)
SATURDAY = 5  # date.weekday()


@dataclass(frozen=True)
class Calendar:
    zone: tzinfo = UTC
    weekends_off: bool = False
    breaks: tuple[tuple[datetime, datetime], ...] = ()  # vacations, (start, end), any order

    def after(self, start: datetime, amount: timedelta) -> datetime:
        """The instant at which `amount` of counting time has passed since `start`: the pauses
        are skipped, and a clock started in a pause starts at its end (so with no time left
        it runs out as the pause ends). A count that ends where a pause begins ends there."""
        moment, left = _utc(start), max(amount, ZERO)
        while True:
            pause = self._next_pause(moment)
            if pause is None:
                return moment + left
            begins, ends = pause
            if begins <= moment:
                moment = ends
                continue
            if moment + left <= begins:
                return moment + left
            left -= begins - moment
            moment = ends

    def counted(self, start: datetime, end: datetime) -> timedelta:
        """The counting time between `start` and `end` (nothing if `end` is not later)."""
        moment, end, total = _utc(start), _utc(end), ZERO
        while moment < end:
            pause = self._next_pause(moment)
            if pause is None:
                return total + (end - moment)
            begins, ends = pause
            if begins > moment:
                total += min(begins, end) - moment
            moment = ends
        return total

    def pauses(self, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
        """The pauses between `start` and `end`, clipped to them, those that touch merged
        into one (a vacation that runs into a weekend): what a page needs to count a clock
        down by itself (games/static/games/clocks.js)."""
        moment, end, found = _utc(start), _utc(end), []
        while moment < end and (pause := self._next_pause(moment)) is not None:
            begins, ends = max(pause[0], moment), pause[1]
            if begins >= end:
                break
            if found and found[-1][1] >= begins:
                begins = found.pop()[0]
            found.append((begins, min(ends, end)))
            moment = ends
        return found

    def paused(self, at: datetime) -> bool:
        pause = self._next_pause(_utc(at))
        return pause is not None and pause[0] <= _utc(at)

    def _next_pause(self, moment: datetime) -> tuple[datetime, datetime] | None:
        """The pause that `moment` is in, or else the next one: of those that end after it,
        the one that begins first."""
        found = None
        for begins, ends in self.breaks:
            begins, ends = _utc(begins), _utc(ends)
            if ends > moment and begins < ends and (found is None or begins < found[0]):
                found = (begins, ends)
        if self.weekends_off:
            weekend = self._weekend(moment)
            if found is None or weekend[0] < found[0]:
                found = weekend
        return found

    def _weekend(self, moment: datetime) -> tuple[datetime, datetime]:
        """The weekend `moment` is in, or else the next one, in the calendar's zone."""
        today = moment.astimezone(self.zone).date()
        saturday = today - timedelta(days=(today.weekday() - SATURDAY) % 7)
        begins, ends = self._midnight(saturday), self._midnight(saturday + timedelta(days=2))
        if ends <= moment:
            saturday += WEEK
            begins, ends = self._midnight(saturday), self._midnight(saturday + timedelta(days=2))
        return begins, ends

    def _midnight(self, day: date) -> datetime:
        # A midnight that a DST change skips is read with the offset before the change.
        return datetime.combine(day, time(), tzinfo=self.zone).astimezone(UTC)


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("a clock counts aware instants only")
    return moment.astimezone(UTC)
