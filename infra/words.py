"""Lengths of time and places in words: the one way pages, emails and refusals say them, in the
active language (django.utils.translation: a page's, or an email's recipient's).

The words of the units ("day", "hours") come from the translation files; the forms of numbers
that each language writes its own way (ordinals, the "and" of a list) are here, keyed by the
language (`language()`: "en", "es", "fr", "de"), English for any other.
"""

from datetime import timedelta

from django.utils.translation import get_language, ngettext, pgettext

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
SUFFIXES = {1: "st", 2: "nd", 3: "rd"}
# The word that joins a list's last item, without a comma before it in each of these.
AND = {"en": "and", "es": "y", "fr": "et", "de": "und"}


def language() -> str:
    """The active language without its region: "en" for en-gb (or none active), "es"..."""
    return (get_language() or "en").split("-")[0].lower()


def _count(number: int, unit: str) -> str:
    # Each unit's own call, so that makemessages finds the four pairs.
    if unit == "day":
        words = ngettext("%(number)d day", "%(number)d days", number)
    elif unit == "hour":
        words = ngettext("%(number)d hour", "%(number)d hours", number)
    elif unit == "minute":
        words = ngettext("%(number)d minute", "%(number)d minutes", number)
    else:
        words = ngettext("%(number)d second", "%(number)d seconds", number)
    return words % {"number": number}


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
    if len(parts) < 2:
        return parts[0]
    # Translators: a length of time in two units, the larger first: "2 days 6 hours".
    return pgettext("duration", "%(larger)s %(smaller)s") % {
        "larger": parts[0],
        "smaller": parts[1],
    }


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


def _english_ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else SUFFIXES.get(number % 10, "th")
    return f"{number}{suffix}"


def ordinal(number: int) -> str:
    """A place as the active language writes it in figures: in English 1st, 2nd, 3rd, 4th,
    11th, 12th, 13th, 21st, 111th; in Spanish 1.º, 2.º (masculine: "puesto"); in French 1er,
    2e, 3e; in German 1., 2., 3."""
    lang = language()
    if lang == "es":
        return f"{number}.º"
    if lang == "fr":
        return f"{number}er" if number == 1 else f"{number}e"
    if lang == "de":
        return f"{number}."
    return _english_ordinal(number)


def shared_place(place: int) -> str:
    """A place that another player has too: "1st (shared)"."""
    # Translators: a place in a game's results that two players share (a tie): "1st (shared)".
    return pgettext("tied place", "%(place)s (shared)") % {"place": ordinal(place)}


def place_words(place: int, places=()) -> str:
    """A player's place among the game's `places` (every seat's, theirs included): "1st", or
    "1st (shared)" when another seat has the same place."""
    shared = sum(1 for other in places if other == place) > 1
    return shared_place(place) if shared else ordinal(place)


def and_list(items) -> str:
    """ "ada", "ada and brian", "ada, brian and chloe" (in Spanish "ada, brian y chloe", "ada e
    ines" before an i sound; in French "et", in German "und"; none with a comma before it)."""
    items = [str(item) for item in items]
    if len(items) < 2:
        return "".join(items)
    lang = language()
    word = AND.get(lang, AND["en"])
    if lang == "es" and _i_sound(items[-1]):
        word = "e"  # "Ana e Isabel", not "y Isabel"
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def _i_sound(word: str) -> bool:
    """Whether a Spanish word begins with the vowel sound i (i-, hi-; not hie- or hia-, where
    the i glides into the next vowel): then "and" is "e"."""
    low = word.casefold().removeprefix("h")
    return low[:1] in ("i", "í") and low[1:2] not in ("e", "a")
