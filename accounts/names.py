"""Look-alike usernames: a name that reads as an existing player's is refused.

"alice" with its first letter Cyrillic (U+0430), "AIice" with a capital I, "alice" in
full-width letters (U+FF41...) or "EasyB0t" with a zero all read as someone else's name. Each
name gets a key, its confusable skeleton (Unicode TR39): compatibility-normalised (NFKC),
case-folded, decomposed, and every character replaced by the one it is confusable with. Two
names with one key look alike.

The confusable pairs are Unicode's own (confusables.txt), as the confusable_homoglyphs package
ships them: for each character, the characters it may be mistaken for. Unicode's table maps each
character to one prototype; the package keeps the pairs without saying which side is the
prototype, but each group of look-alikes is a star around its prototype (a test checks it), so
the prototype is the member that all the others are paired with; of a lone pair, either serves,
and the smaller is taken.

`User.name_key` holds the key of each name (unique, indexed; accounts/models.py), so the check
(`models.looks_taken`) is one indexed query; it is stored as a SHA-256 digest, since
normalisation may make a 150-character name thousands of characters long, past what an index
holds. A new name is refused if its key, or the key it has when read before case folding (so
that a capital I stands for an l, a zero for an O), is already an account's.
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import cache

from confusable_homoglyphs.utils import load
from django.utils.translation import gettext_lazy

MARKS = str.maketrans("", "", "\u200e\u200f")  # direction marks around right-to-left glyphs
MESSAGE = gettext_lazy("This name looks like an existing player's name.")


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the prototype of its group of look-alikes."""
    pairs: dict[str, set[str]] = {}
    for glyph, others in load("confusables.json").items():
        glyph = glyph.translate(MARKS)
        pairs.setdefault(glyph, set()).update(o["c"].translate(MARKS) for o in others)
    prototype = {}
    for glyph, others in pairs.items():
        if len(glyph) != 1 or len(others) != 1:
            continue  # a prototype (of several glyphs, or of several characters)
        (other,) = others
        if len(pairs.get(other, ())) > 1 or len(other) > 1 or other < glyph:
            prototype[glyph] = other
    return prototype


def _mapped(text: str) -> str:
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in text))


def skeleton(name: str) -> str:
    """The key of a name: two names look alike when their keys are equal."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    for _ in range(4):  # a prototype may be upper case ("0" -> "O"), or of several characters
        mapped = _mapped(unicodedata.normalize("NFD", text.casefold()))
        if mapped == text:
            break
        text = mapped
    return text


def name_key(name: str) -> str:
    """What `User.name_key` holds for a name: its skeleton's digest."""
    return _digest(skeleton(name))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def keys_to_refuse(name: str) -> set[str]:
    """The keys that a name may not share with an existing account: its own, and the one it
    has when mapped before case folding (an upper-case I reads as an l, which folding to i
    would hide)."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    return {name_key(name), _digest(skeleton(_mapped(text)))}
