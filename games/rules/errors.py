"""Typed errors: why an action, a seat or an input was refused.

Every error is a `RuleError` with a stable machine `code` and a `message` a player can read.
`space` and `tile` say what caused it when that is known, so a view can show the message beside
the right space or tile. Catch `RuleError` to catch them all.

A message is said in English here; `words` is the same message to say in the reader's language
at the edge: a template marked for translation and its named parameters (games/rules/i18n.py,
games/play/errors.py). Every template is marked with `gettext_noop` where it is written.
"""

from __future__ import annotations

from collections.abc import Mapping

from .i18n import Words, gettext_noop


class RuleError(Exception):
    """Base class of every refusal. `code` is stable; `message` is for people."""

    code = "rule_error"
    default_message = gettext_noop("That is not allowed.")

    def __init__(
        self,
        message: str | Words | None = None,
        params: Mapping[str, object] | None = None,
        *,
        space: int | None = None,
        tile: int | None = None,
    ) -> None:
        """`message` is a template marked with `gettext_noop` (or `Words`, e.g. a plural from
        `ngettext_lazy`), `params` its named parameters: numbers, or `Words` themselves."""
        if isinstance(message, Words):
            self.words = message
        else:
            self.words = Words(message or self.default_message, params)
        self.message = self.words.say()
        self.space = space
        self.tile = tile
        super().__init__(self.message)

    @property
    def template(self) -> str:
        """The message's English template, as the translations know it."""
        return self.words.template

    @property
    def params(self) -> dict[str, object]:
        return self.words.params

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "space": self.space, "tile": self.tile}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class BadAction(RuleError):
    code = "bad_action"
    default_message = gettext_noop("That action is not understood.")


class BadSeat(RuleError):
    code = "bad_seat"
    default_message = gettext_noop("There is no such seat in this game.")


class BadSpace(RuleError):
    code = "bad_space"
    default_message = gettext_noop("There is no such space on the board.")


class BadRotation(RuleError):
    code = "bad_rotation"
    default_message = gettext_noop("A rotation is 0, 1, 2 or 3 quarter turns.")


class BadState(RuleError):
    code = "bad_state"
    default_message = gettext_noop("The saved game state is damaged.")


class BadSetup(RuleError):
    code = "bad_setup"
    default_message = gettext_noop("A game needs 2 to 5 players and a whole-number seed.")


class WrongPhase(RuleError):
    code = "wrong_phase"
    default_message = gettext_noop("That cannot be done at this stage of the game.")


class NotYourTurn(RuleError):
    code = "not_your_turn"
    default_message = gettext_noop("It is not your turn.")


class NotInDrawColumn(RuleError):
    code = "not_in_draw_column"
    default_message = gettext_noop("That tile is not in the draw column.")


class ForcedActionDue(RuleError):
    code = "forced_action_due"
    default_message = gettext_noop("The last tile of the draw column must be taken first.")


class NoForcedAction(RuleError):
    code = "no_forced_action"
    default_message = gettext_noop("There is no last tile to take now.")


class DraftPending(RuleError):
    code = "draft_pending"
    default_message = gettext_noop("You have already drafted a tile: confirm or undo it first.")


class NoPendingDraft(RuleError):
    code = "no_pending_draft"
    default_message = gettext_noop("You have no draft to confirm or undo.")


class TileNotInTray(RuleError):
    code = "tile_not_in_tray"
    default_message = gettext_noop("That tile is not in your tray.")


class SpaceOccupied(RuleError):
    code = "space_occupied"
    default_message = gettext_noop("That space already holds a tile.")


class SpaceEmpty(RuleError):
    code = "space_empty"
    default_message = gettext_noop("There is no tile on that space.")


class IllegalTilesOnBoard(RuleError):
    code = "illegal_tiles_on_board"
    default_message = gettext_noop("You cannot finish while a tile on your board is illegal.")


class OpenPathsOnBoard(RuleError):
    code = "open_paths_on_board"
    default_message = gettext_noop(
        "At this table you can finish only when every placed path is closed."
    )


class NothingToUndo(RuleError):
    code = "nothing_to_undo"
    default_message = gettext_noop(
        "There is no change to your board to undo since your last draft."
    )


class NothingToRedo(RuleError):
    code = "nothing_to_redo"
    default_message = gettext_noop("There is no undone change to redo.")


class BoardFinished(RuleError):
    code = "board_finished"
    default_message = gettext_noop("Your board is finished and can no longer change.")


class AlreadyLeft(RuleError):
    code = "already_left"
    default_message = gettext_noop("This seat has already left the game.")


class NobodyLeft(RuleError):
    code = "nobody_left"
    default_message = gettext_noop("A game ends early only once a player has left it.")


class YourTurnNow(RuleError):
    code = "your_turn_now"
    default_message = gettext_noop("It is your turn: draft now.")


class NotInNextColumn(RuleError):
    code = "not_in_next_column"
    default_message = gettext_noop("That tile is not in the column your next turn draws from.")


class BadQueue(RuleError):
    code = "bad_queue"
    default_message = gettext_noop("That queue of drafts is not understood.")


class NothingToQueue(RuleError):
    code = "nothing_to_queue"
    default_message = gettext_noop("There is no choice to make at your next turn.")


#: Every error class by its code.
ERRORS: dict[str, type[RuleError]] = {
    cls.code: cls
    for cls in (
        RuleError,
        BadAction,
        BadSeat,
        BadSpace,
        BadRotation,
        BadState,
        BadSetup,
        WrongPhase,
        NotYourTurn,
        NotInDrawColumn,
        ForcedActionDue,
        NoForcedAction,
        DraftPending,
        NoPendingDraft,
        TileNotInTray,
        SpaceOccupied,
        SpaceEmpty,
        IllegalTilesOnBoard,
        OpenPathsOnBoard,
        NothingToUndo,
        NothingToRedo,
        BoardFinished,
        AlreadyLeft,
        NobodyLeft,
        YourTurnNow,
        NotInNextColumn,
        BadQueue,
        NothingToQueue,
    )
}
