"""The rules' words for people, ready to be said in any language at the edge.

The rules know no Django (an import-linter contract), so they cannot translate: they say what
they mean in English, as a `Words`: a message *template* with named placeholders and its named
parameters. A parameter may itself be `Words` (a tile's name, a space's), said in the same
language as the sentence around it. `str(words)` is the English; the platform says it in the
reader's language with `words.say(gettext, ngettext)` (games/play/errors.py).

The templates are marked with `gettext_noop` and `ngettext_lazy` below: Django's `makemessages`
finds these names (they are its own keywords) and puts the templates in the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping


def gettext_noop(message: str) -> str:
    """Mark `message` for translation, and return it unchanged (English)."""
    return message


def ngettext_lazy(singular: str, plural: str, number: int, **params: object) -> Words:
    """Mark a message with a singular and a plural form: the one for `number` is chosen in the
    reader's language when the words are said (Django's name for a plural said later)."""
    return Words(singular, params, plural=plural, number=number)


def _english(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, number: int) -> str:
    return singular if number == 1 else plural


class Words:
    """A message to say later: `template` (English, marked for translation) with `params`, and
    for a count the `plural` template and the `number` that chooses between them."""

    __slots__ = ("number", "params", "plural", "template")

    def __init__(
        self,
        template: str,
        params: Mapping[str, object] | None = None,
        *,
        plural: str | None = None,
        number: int | None = None,
    ) -> None:
        self.template = template
        self.params = dict(params or {})
        self.plural = plural
        self.number = number

    def say(
        self,
        gettext: Callable[[str], str] = _english,
        ngettext: Callable[[str, str, int], str] = _english_plural,
    ) -> str:
        """The words in the language of `gettext` and `ngettext` (English by default)."""
        if self.plural is None:
            template = gettext(self.template)
        else:
            template = ngettext(self.template, self.plural, self.number or 0)
        if not self.params:
            return template
        values = {
            name: value.say(gettext, ngettext) if isinstance(value, Words) else value
            for name, value in self.params.items()
        }
        return template % values

    def __str__(self) -> str:
        return self.say()

    def __repr__(self) -> str:
        return f"Words({self.say()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Words):
            return NotImplemented
        return (self.template, self.params, self.plural, self.number) == (
            other.template,
            other.params,
            other.plural,
            other.number,
        )

    def __hash__(self) -> int:
        return hash((self.template, self.plural, self.number))


def and_words(items: list[Words | str]) -> Words | str:
    """A list as one phrase: "a", "a and b", "a; b and c" (the separator the refusals use
    between spaces, each of which has a comma of its own)."""
    if len(items) == 1:
        return items[0]
    *earlier, last = items
    joined: Words | str = earlier[0]
    for item in earlier[1:]:
        # Translators: joins the items of a list of spaces on a board ("row 1, column 2;
        # row 3, column 4"), before the last one is joined with "and".
        joined = Words(gettext_noop("%(earlier)s; %(next)s"), {"earlier": joined, "next": item})
    # Translators: the last item of a list: "row 1, column 2 and row 3, column 4".
    return Words(gettext_noop("%(earlier)s and %(last)s"), {"earlier": joined, "last": last})
