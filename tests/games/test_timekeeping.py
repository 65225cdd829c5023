"""Counting time (games/timekeeping.py): weekends in each player's own time zone, across the
changes of daylight-saving time, and vacations."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from games.timekeeping import Calendar

MADRID = ZoneInfo("Europe/Madrid")
NEW_YORK = ZoneInfo("America/New_York")
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def at(zone, *parts) -> datetime:
    return datetime(*parts, tzinfo=zone)


def test_without_weekends_or_vacations_time_counts_straight_through():
    calendar = Calendar(MADRID)
    friday = at(MADRID, 2025, 1, 10, 12)
    assert calendar.after(friday, DAY * 3) == friday + DAY * 3
    assert calendar.counted(friday, friday + DAY * 3) == DAY * 3
    assert calendar.counted(friday, friday - HOUR) == timedelta(0)


def test_a_weekend_off_stops_the_clock_from_saturday_to_monday_in_the_players_zone():
    calendar = Calendar(MADRID, weekends_off=True)
    friday_noon = at(MADRID, 2025, 1, 10, 12)

    assert calendar.after(friday_noon, DAY) == at(MADRID, 2025, 1, 13, 12)  # Monday noon
    assert calendar.after(friday_noon, HOUR * 12) == at(MADRID, 2025, 1, 11, 0)  # at Saturday
    assert calendar.counted(friday_noon, at(MADRID, 2025, 1, 13, 0)) == HOUR * 12
    # A clock started on Sunday starts on Monday.
    assert calendar.after(at(MADRID, 2025, 1, 12, 15), HOUR) == at(MADRID, 2025, 1, 13, 1)
    assert calendar.paused(at(MADRID, 2025, 1, 11, 0))
    assert not calendar.paused(at(MADRID, 2025, 1, 13, 0))


def test_two_players_at_one_table_have_their_own_weekends():
    madrid = Calendar(MADRID, weekends_off=True)
    new_york = Calendar(NEW_YORK, weekends_off=True)
    start = at(MADRID, 2025, 1, 10, 22)  # Friday 22:00 in Madrid is 16:00 in New York

    # Madrid's weekend begins two hours later: the last two hours wait until Monday there.
    assert madrid.after(start, HOUR * 4) == at(MADRID, 2025, 1, 13, 2)
    # New York's begins eight hours later: the four hours run out on Friday evening.
    assert new_york.after(start, HOUR * 4) == at(NEW_YORK, 2025, 1, 10, 20)
    # Saturday 03:00 in Madrid is still Friday in New York.
    saturday_early = at(MADRID, 2025, 1, 11, 3)
    assert madrid.paused(saturday_early) and not new_york.paused(saturday_early)


@pytest.mark.parametrize(
    "zone, friday, hours_of_weekend",
    [
        (MADRID, (2025, 3, 28), 47),  # clocks go forward on Sunday 30 March
        (MADRID, (2025, 10, 24), 49),  # and back on Sunday 26 October
        (NEW_YORK, (2025, 3, 7), 47),  # forward on Sunday 9 March
        (NEW_YORK, (2025, 10, 31), 49),  # back on Sunday 2 November
    ],
)
def test_a_weekend_with_a_daylight_saving_change_is_still_saturday_to_monday(
    zone, friday, hours_of_weekend
):
    calendar = Calendar(zone, weekends_off=True)
    friday_noon = at(zone, *friday, 12)
    monday_noon = at(zone, *friday, 12) + timedelta(days=3)  # the same wall time on Monday

    deadline = calendar.after(friday_noon, DAY)

    assert deadline.astimezone(zone).replace(tzinfo=None) == monday_noon.replace(tzinfo=None)
    assert deadline - friday_noon == DAY + HOUR * hours_of_weekend
    assert calendar.counted(friday_noon, deadline) == DAY


def test_a_vacation_stops_the_clock_and_one_started_on_vacation_starts_at_its_end():
    start = at(UTC, 2025, 1, 6, 9)  # a Monday
    away = (start + HOUR * 2, start + DAY * 3)
    calendar = Calendar(UTC, breaks=(away,))

    assert calendar.after(start, HOUR * 5) == away[1] + HOUR * 3
    assert calendar.counted(start, away[1] + HOUR * 3) == HOUR * 5
    assert calendar.after(away[0] + HOUR, HOUR) == away[1] + HOUR
    # With no time left, the clock runs out the moment the vacation ends.
    assert calendar.after(away[0] + HOUR, timedelta(0)) == away[1]
    # A vacation over and done with changes nothing later.
    assert calendar.after(away[1] + DAY, HOUR) == away[1] + DAY + HOUR


def test_vacations_and_weekends_together_make_one_pause():
    friday = at(MADRID, 2025, 1, 10, 12)
    away = (friday + HOUR, at(MADRID, 2025, 1, 11, 12))  # until Saturday noon
    calendar = Calendar(MADRID, weekends_off=True, breaks=(away,))

    assert calendar.after(friday, HOUR * 2) == at(MADRID, 2025, 1, 13, 1)
    # The vacation runs into the weekend: one pause, as a page counts the clock down.
    assert calendar.pauses(friday, at(MADRID, 2025, 1, 13, 1)) == [
        (friday + HOUR, at(MADRID, 2025, 1, 13, 0))
    ]
    assert calendar.paused(friday + HOUR * 2)


def test_the_pauses_of_a_turn_are_clipped_to_it():
    calendar = Calendar(NEW_YORK, weekends_off=True)
    thursday = at(NEW_YORK, 2025, 1, 9, 12)
    deadline = calendar.after(thursday, DAY * 7)

    assert calendar.pauses(thursday, deadline) == [
        (at(NEW_YORK, 2025, 1, 11, 0), at(NEW_YORK, 2025, 1, 13, 0)),
        (at(NEW_YORK, 2025, 1, 18, 0), at(NEW_YORK, 2025, 1, 20, 0)),
    ]
    assert deadline == at(NEW_YORK, 2025, 1, 20, 12)
    # A turn that runs out before the weekend has none; one begun in a weekend, its rest.
    assert calendar.pauses(thursday, thursday + HOUR) == []
    sunday = at(NEW_YORK, 2025, 1, 12, 9)
    assert calendar.pauses(sunday, calendar.after(sunday, HOUR)) == [
        (sunday, at(NEW_YORK, 2025, 1, 13, 0))
    ]


def test_instants_must_be_aware():
    with pytest.raises(ValueError):
        Calendar().after(datetime(2025, 1, 1), HOUR)
