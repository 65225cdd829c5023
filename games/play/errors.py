"""Why the platform refused a request, in words a player can read beside what caused it."""

from typing import Self

from django.utils.translation import gettext, ngettext

from games.rules import RuleError


class ActionRefused(Exception):
    """A request the game does not accept. Nothing was changed."""

    code = "refused"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        space: int | None = None,
        tile: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.space = space
        self.tile = tile

    @classmethod
    def from_rule_error(cls, error: RuleError) -> Self:
        """The rules' refusal in the reader's language: its template translated, and its
        parameters that are words (a tile's name, a space's) too (games/rules/i18n.py)."""
        message = error.words.say(gettext, ngettext)
        return cls(message, code=error.code, space=error.space, tile=error.tile)


class StaleVersion(ActionRefused):
    """The request was made against a state that has since changed in a way that matters."""

    code = "stale"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message or gettext("The game has moved on since your page was drawn; here it is now.")
        )
