"""Lengths of time and places in words: the one way pages, emails and refusals say them."""

from datetime import timedelta

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
SUFFIXES = {1: "st", 2: "nd", 3: "rd"}


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}{'s' if number != 1 else ''}"


def _seconds(duration: timedelta | float) -> float:
    return duration.total_seconds() if isinstance(duration, timedelta) else float(duration)


def duration_words(duration: timedelta | float) -> str:
    """A length of time in its two largest units, to the minute: "1 day", "2 days 6 hours",
    "1 hour 30 minutes"; a time under a minute in seconds."""
    seconds = int(_seconds(duration))
    if seconds < 60:
        return _count(max(seconds, 0), "second")
    parts = []
    for unit, size in UNITS[:3]:
        number, seconds = divmod(seconds, size)
        if number:
            parts.append(_count(number, unit))
    return " ".join(parts[:2])


def wait_words(duration: timedelta | float) -> str:
    """How long to wait, in one unit and rounded up, never too early: "12 seconds",
    "5 minutes", "2 hours"."""
    seconds = -(-int(_seconds(duration) * 1000) // 1000)  # whole seconds, rounded up
    if seconds < 90:
        return _count(seconds, "second")
    minutes = -(-seconds // 60)
    if minutes < 90:
        return _count(minutes, "minute")
    return _count(-(-minutes // 60), "hour")


def ordinal(number: int) -> str:
    """A place in English: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 111th."""
    suffix = "th" if 10 <= number % 100 <= 20 else SUFFIXES.get(number % 10, "th")
    return f"{number}{suffix}"


def place_words(place: int, places=()) -> str:
    """A player's place among the game's `places` (every seat's, theirs included): "1st", or
    "1st (shared)" when another seat has the same place."""
    shared = sum(1 for other in places if other == place) > 1
    return f"{ordinal(place)} (shared)" if shared else ordinal(place)


def and_list(items) -> str:
    """ "ada", "ada and brian", "ada, brian and chloe"."""
    items = [str(item) for item in items]
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"
