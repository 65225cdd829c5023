"""Why a change about another player was not made, in words the player can read."""


class Refused(Exception):
    """A request about another player (follow, block) that is not accepted. Nothing changed."""

    def __init__(self, message: str, *, code: str = "refused"):
        super().__init__(message)
        self.message = message
        self.code = code
