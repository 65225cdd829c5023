"""The vacation days' rule (accounts/vacations.py): 30 to start with, 30 earned a year, at most
30 banked, charged for the time actually taken."""

from datetime import UTC, datetime, timedelta

from accounts import vacations
from accounts.models import User

DAY = timedelta(days=1)
START = datetime(2025, 1, 6, 9, tzinfo=UTC)


def a_player(**fields) -> User:
    """A player as a row would hold them (not saved: the rule is bookkeeping on the row)."""
    return User(username="ada", vacation_days_at=START, **fields)


def test_a_new_player_has_30_days_and_can_bank_no_more():
    player = a_player()
    assert vacations.days_left(player, START) == DAY * 30
    assert vacations.days_left(player, START + DAY * 400) == DAY * 30


def test_days_taken_are_charged_as_they_pass_and_earned_back_at_30_a_year():
    player = a_player()
    vacations.begin(player, START, DAY * 10)
    assert vacations.on_vacation(player, START + DAY)
    assert vacations.days_left(player, START + DAY * 4) == DAY * 26  # charged as it passes

    back = START + DAY * 4
    assert vacations.end(player, back) == (START, back)  # back early: four days are charged

    assert not vacations.on_vacation(player, back)
    assert player.vacation_until is None
    assert vacations.days_left(player, back) == DAY * 26
    earned = vacations.days_left(player, back + DAY * 36.5) - DAY * 26  # a tenth of a year
    assert abs(earned - DAY * 3) < timedelta(seconds=1)
    assert vacations.days_left(player, back + DAY * 200) == DAY * 30  # at most 30
    # The clocks still skip the vacation just ended.
    assert vacations.breaks(player) == ((START, back),)


def test_a_vacation_ended_after_its_end_is_charged_only_to_its_end():
    player = a_player()
    vacations.begin(player, START, DAY * 3)
    assert not vacations.on_vacation(player, START + DAY * 3)  # it ran out by itself

    vacations.end(player, START + DAY * 5)  # the sweep came later

    assert player.vacation_days == DAY * 27
    assert player.vacation_days_at == START + DAY * 3
    assert vacations.breaks(player) == ((START, START + DAY * 3),)


def test_vacations_long_over_are_forgotten():
    player = a_player()
    vacations.begin(player, START, DAY)
    vacations.end(player, START + DAY)
    later = START + vacations.MEMORY + DAY * 2
    vacations.begin(player, later, DAY)
    vacations.end(player, later + DAY)

    assert vacations.breaks(player) == ((later, later + DAY),)


def test_days_are_said_to_a_tenth_rounded_down():
    assert vacations.days_words(DAY * 30) == "30 days"
    assert vacations.days_words(DAY) == "1 day"
    assert vacations.days_words(DAY * 12.46) == "12.4 days"
    assert vacations.days_words(timedelta(hours=2)) == "0 days"
