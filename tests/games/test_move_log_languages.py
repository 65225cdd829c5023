"""The move log in the reader's language (issue 24, games/move_log.py): each entry is put in words
when it is read, in the language active then, as one whole message with named placeholders
(the reader's own apart from anyone's; plurals by ngettext), the tiles by their translated names
and the players' names as they are. No catalogue is shipped yet: gettext is patched with one
that "translates" to upper case, and the English must be as before without it."""

import re
from datetime import datetime

import pytest
from django.utils import translation

from games import move_log
from games.move_log import Entry, Turn, summary, summary_parts, summary_sentence
from games.rules import Colour, Kind
from games.rules.tiles import tile_ids_of

WHEN = datetime(2025, 5, 1, 12, 0)
RED_CROSS = tile_ids_of(Kind.CROSS, Colour.RED)[0]
BLUE_END = tile_ids_of(Kind.END, Colour.BLUE)[0]
PINK_TEE = tile_ids_of(Kind.TEE, Colour.PINK)[0]
NAMES = ("ada", "brian", "chloe")  # the players' names are never translated
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


def entry(kind, **parts):
    return Entry(1, kind, WHEN, **parts)


def ada(kind, **parts):
    """An entry of Ada's, at seat 0."""
    return entry(kind, seat=0, name="ada", **parts)


DRAFT = {"tile": RED_CROSS, "column": 1}  # the pool's second column, "column 2" to players

# Every kind of entry, read by Ada (seat 0: "you") and by Brian (seat 1), and its English.
CASES = [
    (ada("draft", **DRAFT), 0, "you took a red cross from column 2"),
    (ada("draft", **DRAFT), 1, "ada took a red cross from column 2"),
    (ada("draft", **DRAFT), None, "ada took a red cross from column 2"),
    (ada("queued", **DRAFT), 0, "your queued draft took a red cross from column 2"),
    (ada("queued", **DRAFT), 1, "ada took a red cross from column 2"),
    (ada("draft", stand_in=True, **DRAFT), 0, "the server took a red cross from column 2 for you"),
    (ada("draft", stand_in=True, **DRAFT), 1, "the server took a red cross from column 2 for ada"),
    (ada("finish", stand_in=True), 0, "the server finished your board"),
    (ada("finish", stand_in=True), 1, "the server finished ada's board"),
    (
        ada("forced_take", **DRAFT),
        0,
        "the server took the last tile of column 2, a red cross, for you",
    ),
    (
        ada("forced_take", **DRAFT),
        1,
        "the server took the last tile of column 2, a red cross, for ada",
    ),
    (
        ada("timeout", **DRAFT),
        0,
        "your time ran out: the server took a red cross from column 2 for you",
    ),
    (
        ada("timeout", **DRAFT),
        1,
        "ada's time ran out: the server took a red cross from column 2 for ada",
    ),
    (
        ada("timeout", confirmed=True, **DRAFT),
        0,
        "your time ran out: the server confirmed your draft of a red cross",
    ),
    (
        ada("timeout", confirmed=True, **DRAFT),
        1,
        "ada's time ran out: the server confirmed ada's draft of a red cross",
    ),
    (ada("finish"), 0, "you finished"),
    (ada("finish"), 1, "ada finished"),
    (ada("deadline"), 0, "your finishing time ran out: the board was submitted as it was"),
    (ada("deadline"), 1, "ada's finishing time ran out: the board was submitted as it was"),
    (
        ada("deadline", returned=1),
        0,
        "your finishing time ran out: the board was submitted as it was, 1 illegal tile back "
        "to the tray",
    ),
    (
        ada("deadline", returned=3),
        1,
        "ada's finishing time ran out: the board was submitted as it was, 3 illegal tiles back "
        "to the tray",
    ),
    (ada("resigned"), 0, "you resigned: the server plays your seat from now on"),
    (ada("resigned"), 1, "ada resigned: the server plays their seat from now on"),
    (ada("abandoned"), 0, "your time ran out too often: the server plays your seat from now on"),
    (
        ada("abandoned"),
        1,
        "ada's time ran out too often: the server plays their seat from now on",
    ),
    (ada("expelled"), 0, "the others voted: the server plays your seat from now on"),
    (ada("expelled"), 1, "the others voted: the server plays ada's seat from now on"),
    (
        ada("expel_vote", target=2, target_name="chloe", votes=(1, 2)),
        0,
        "you voted to hand chloe's seat to the server (1 of the 2 votes needed)",
    ),
    (
        ada("expel_vote", target=1, target_name="brian", votes=(1, 1)),
        1,
        "ada voted to hand your seat to the server (1 of the 1 vote needed)",
    ),
    (
        ada("expel_vote", target=2, target_name="chloe", votes=(2, 3)),
        1,
        "ada voted to hand chloe's seat to the server (2 of the 3 votes needed)",
    ),
    (
        entry("concluded"),
        0,
        "nobody is left playing: the game ends with every board as it stands",
    ),
    (entry("joined", name="ada"), 0, "ada took a seat"),
    (entry("left", name="ada"), 0, "ada left the table"),
    (entry("created", name="ada"), 0, "ada opened the table"),
    (entry("started", extra="brian"), 0, "the game started: brian drafts first"),
    (entry("cancelled", name="ada"), 0, "ada cancelled the game"),
    (entry("declined", name="ada"), 0, "ada declined the invitation"),
    (entry("ended"), 0, "the game is over"),
    (entry("analysed"), 0, "the post-game analysis is ready"),
]


def shout(message):
    """A "translation": the message upper-cased, its placeholders as they are."""
    parts = PLACEHOLDER.split(message)
    kept = PLACEHOLDER.findall(message)
    out = parts[0].upper()
    for placeholder, part in zip(kept, parts[1:], strict=True):
        out += placeholder + part.upper()
    return out


def shouted(english):
    """The English of an entry as `shout` says it: upper case, bar the players' names."""
    out = english.upper()
    for name in NAMES:
        out = out.replace(name.upper(), name)
    return out


@pytest.fixture
def german(monkeypatch):
    """German active, and a German catalogue that shouts (other languages have none); every
    message asked for is recorded (the singular and plural of ngettext, the context of
    pgettext), each with the language active when it was asked for."""
    asked = []

    def say(message):
        return shout(message) if translation.get_language() == "de" else message

    def gettext(message):
        asked.append((translation.get_language(), message))
        return say(message)

    def ngettext(singular, plural, number):
        asked.append((translation.get_language(), (singular, plural)))
        return say(singular if number == 1 else plural)

    def pgettext(context, message):
        asked.append((translation.get_language(), (context, message)))
        return say(message)

    monkeypatch.setattr(move_log, "gettext", gettext)
    monkeypatch.setattr(move_log, "ngettext", ngettext)
    monkeypatch.setattr(move_log, "pgettext", pgettext)
    with translation.override("de"):
        yield asked


@pytest.mark.parametrize(("item", "reader", "english"), CASES)
def test_every_entry_reads_as_before_in_english(item, reader, english):
    assert item.text(reader) == english
    with translation.override("en-gb"):
        assert item.text(reader) == english


@pytest.mark.parametrize(("item", "reader", "english"), CASES)
def test_every_entry_is_one_whole_message_said_in_the_readers_language(
    german, item, reader, english
):
    said = item.text(reader)
    assert said == shouted(english)
    assert all(language == "de" for language, _ in german)
    # The sentence is the last message asked for (the tile's name comes first, whole): it says
    # the whole English sentence once its placeholders are filled, so no word is glued on.
    message = german[-1][1]
    if isinstance(message, tuple):  # ngettext: each form is whole
        singular, plural = message
        message = plural if "tiles back" in english or "votes needed" in english else singular
        assert PLACEHOLDER.findall(singular) == PLACEHOLDER.findall(plural)
    words = {
        "player": item.name or item.extra,
        "target": item.target_name,
        "tile": "red cross",
        "column": 2,
        "count": item.returned,
        "votes": item.votes[0],
        "needed": item.votes[1],
    }
    assert message % words == english
    # The reader is "you" in a message of their own, never a name; the others are never "you".
    if reader is not None and item.seat == reader:
        assert "%(player)s" not in message
    elif item.target != reader:
        assert not re.search(r"\byour?\b", message)
    if item.tile is not None:  # the tile's name: its own whole message, translated too
        assert ("de", "red cross") in german
        assert "%(tile)s" in message


def test_the_reader_decides_the_language_when_reading_not_the_entry(german):
    item = ada("draft", **DRAFT)  # made once, read by many
    assert item.text(1) == "ada TOOK A RED CROSS FROM COLUMN 2"
    with translation.override("en-gb"):
        assert item.text(1) == "ada took a red cross from column 2"
    assert item.text(1) == "ada TOOK A RED CROSS FROM COLUMN 2"
    assert [language for language, _ in german] == ["de", "de", "en-gb", "en-gb", "de", "de"]


def test_the_own_and_the_others_are_separate_messages(german):
    item = ada("timeout", **DRAFT)
    item.text(0)
    own = german[-1][1]
    item.text(1)
    others = german[-1][1]
    assert own == "your time ran out: the server took a %(tile)s from column %(column)s for you"
    assert others == (
        "%(player)s's time ran out: the server took a %(tile)s from column %(column)s "
        "for %(player)s"
    )


def test_the_turns_headings(german):
    assert Turn(move_log.LOBBY, ()).label == "AT THE TABLE"
    assert Turn(3, ()).label == "TURN 3"
    assert Turn(None, ()).label == "FINISHING"
    assert ("de", ("move log", "At the table")) in german
    assert ("de", "Turn %(number)d") in german
    assert ("de", ("the game's phase", "Finishing")) in german


def test_the_turns_headings_in_english():
    assert [Turn(n, ()).label for n in (move_log.LOBBY, 3, None)] == [
        "At the table",
        "Turn 3",
        "Finishing",
    ]


def summary_entries():
    brian = {"seat": 1, "name": "brian"}
    return [
        entry("draft", tile=RED_CROSS, column=0, **brian),
        entry("queued", tile=BLUE_END, column=4, **brian),
        entry("draft", tile=PINK_TEE, column=2, **brian),
        entry("draft", tile=BLUE_END, column=3, seat=2, name="chloe"),
        ada("forced_take", **DRAFT),
        entry("joined", name="ada"),  # not news
    ]


def test_the_summary_in_english():
    assert summary_parts(summary_entries(), 0) == [
        "brian took a red cross, a blue end and a pink tee",
        "chloe took a blue end",
        "the server took the last tile of column 2, a red cross, for you",
    ]
    assert summary(summary_entries(), 0) == (
        "brian took a red cross, a blue end and a pink tee; chloe took a blue end; "
        "the server took the last tile of column 2, a red cross, for you"
    )


def test_the_summary_in_the_readers_language(german):
    assert summary_parts(summary_entries(), 0) == [
        # The list's "and" is the language's own (infra/words.py).
        "brian TOOK A RED CROSS, A BLUE END und A PINK TEE",
        "chloe TOOK A BLUE END",
        "THE SERVER TOOK THE LAST TILE OF COLUMN 2, A RED CROSS, FOR YOU",
    ]
    asked = [message for _, message in german]
    assert "%(player)s took %(tiles)s" in asked
    assert "%(player)s took a %(tile)s" in asked
    assert ("one of several tiles", "a %(tile)s") in asked


def test_tile_words_in_the_readers_language(german):
    assert move_log.tile_words(RED_CROSS) == "RED CROSS"
    assert german == [("de", "red cross")]


# A little German, to see the capitals: a sentence's first letter is a capital unless it begins
# with a player's name, whatever the language puts first.
GERMAN = {
    "red cross": "rotes Kreuz",
    "blue end": "blaues Ende",
    "you took a %(tile)s from column %(column)s": "du hast ein %(tile)s aus Spalte %(column)s "
    "genommen",
    "%(player)s took a %(tile)s from column %(column)s": "%(player)s hat ein %(tile)s aus "
    "Spalte %(column)s genommen",
    "%(player)s's time ran out: the server took a %(tile)s from column %(column)s "
    "for %(player)s": "die Zeit von %(player)s ist abgelaufen: der Server hat ein %(tile)s aus "
    "Spalte %(column)s für %(player)s genommen",
    "%(player)s took a %(tile)s": "%(player)s hat ein %(tile)s genommen",
    "the game is over": "das Spiel ist aus",
}


@pytest.fixture
def little_german(monkeypatch):
    monkeypatch.setattr(move_log, "gettext", lambda message: GERMAN.get(message, message))
    with translation.override("de"):
        yield


def test_a_sentence_begins_with_a_capital_unless_with_a_name(little_german):
    assert ada("draft", **DRAFT).sentence(0) == "Du hast ein rotes Kreuz aus Spalte 2 genommen"
    assert ada("draft", **DRAFT).sentence(1) == "ada hat ein rotes Kreuz aus Spalte 2 genommen"
    assert ada("timeout", **DRAFT).sentence(1) == (
        "Die Zeit von ada ist abgelaufen: der Server hat ein rotes Kreuz aus Spalte 2 für ada "
        "genommen"
    )
    assert entry("ended").sentence(0) == "Das Spiel ist aus"
    assert entry("ended").text(0) == "das Spiel ist aus"
    news = [entry("draft", tile=BLUE_END, column=0, seat=1, name="brian"), entry("ended")]
    assert summary_sentence(news, 0) == "brian hat ein blaues Ende genommen; das Spiel ist aus"
    assert (
        summary_sentence(news[::-1], 0) == "Das Spiel ist aus; brian hat ein blaues Ende genommen"
    )
    assert summary_sentence([], 0) == ""


def english_sentence(text: str) -> str:
    """How the game page capitalised the English before the log was translated (selectors'
    old `sentence`): only after "you", "your" and "the", so never "nobody"."""
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first in {"you", "your", "the"} else text


@pytest.mark.parametrize(("item", "reader", "english"), CASES)
def test_the_english_sentences_as_the_game_page_writes_them(item, reader, english):
    # As the page capitalised the English before (but "Nobody", which it missed).
    capital = english[:1].upper() + english[1:]
    expected = english if english.startswith(NAMES) else capital
    assert item.sentence(reader) == expected
    if not english.startswith("nobody"):
        assert item.sentence(reader) == english_sentence(item.text(reader))


def test_the_summary_as_a_sentence_in_english():
    assert summary_sentence(summary_entries(), 0) == (
        "brian took a red cross, a blue end and a pink tee; chloe took a blue end; "
        "the server took the last tile of column 2, a red cross, for you"
    )
    news = summary_entries()[4:]
    assert summary_sentence(news, 0) == english_sentence(summary(news, 0))
    assert summary_sentence(news, 0).startswith("The server took")
