"""Lengths of time and places, said the one way every page and email says them."""

from datetime import timedelta

import pytest

from infra.words import duration_words, ordinal, wait_words


@pytest.mark.parametrize(
    ("duration", "words"),
    [
        (timedelta(hours=1), "1 hour"),
        (timedelta(hours=12), "12 hours"),
        (timedelta(days=1), "1 day"),
        (timedelta(days=14), "14 days"),
        (timedelta(days=2, hours=6), "2 days 6 hours"),
        (timedelta(minutes=90), "1 hour 30 minutes"),
        (timedelta(seconds=45), "45 seconds"),
    ],
)
def test_a_length_of_time_in_its_two_largest_units(duration, words):
    assert duration_words(duration) == words


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(1, "1 second"), (12, "12 seconds"), (88.5, "89 seconds"), (90, "2 minutes"),
     (3599, "60 minutes"), (5400, "2 hours"), (7300, "3 hours")],
)  # fmt: skip
def test_a_wait_is_rounded_up_never_too_early(seconds, words):
    assert wait_words(seconds) == words


@pytest.mark.parametrize(
    ("number", "words"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (101, "101st"), (111, "111th"), (112, "112th")],
)  # fmt: skip
def test_places_in_english(number, words):
    assert ordinal(number) == words
