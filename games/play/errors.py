"""Why the platform refused a request, in words a player can read beside what caused it."""

from games.rules import RuleError


class ActionRefused(Exception):
    """A request the game does not accept. Nothing was changed."""

    code = "refused"

    def __init__(self, message, *, code=None, space=None, tile=None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.space = space
        self.tile = tile

    @classmethod
    def from_rule_error(cls, error: RuleError):
        return cls(error.message, code=error.code, space=error.space, tile=error.tile)


class StaleVersion(ActionRefused):
    """The request was made against a state that has since changed in a way that matters."""

    code = "stale"

    def __init__(self, message="The game has moved on since your page was drawn; here it is now."):
        super().__init__(message)
