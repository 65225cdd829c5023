"""Typed errors: why an action, a seat or an input was refused.

Every error is a `RuleError` with a stable machine `code` and a `message` a player can read.
`space` and `tile` say what caused it when that is known, so a view can show the message beside
the right space or tile. Catch `RuleError` to catch them all.
"""

from __future__ import annotations


class RuleError(Exception):
    """Base class of every refusal. `code` is stable; `message` is for people."""

    code = "rule_error"
    default_message = "That is not allowed."

    def __init__(
        self, message: str | None = None, *, space: int | None = None, tile: int | None = None
    ) -> None:
        self.message = message or self.default_message
        self.space = space
        self.tile = tile
        super().__init__(self.message)

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "space": self.space, "tile": self.tile}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class BadAction(RuleError):
    code = "bad_action"
    default_message = "That action is not understood."


class BadSeat(RuleError):
    code = "bad_seat"
    default_message = "There is no such seat in this game."


class BadSpace(RuleError):
    code = "bad_space"
    default_message = "There is no such space on the board."


class BadRotation(RuleError):
    code = "bad_rotation"
    default_message = "A rotation is 0, 1, 2 or 3 quarter turns."


class BadState(RuleError):
    code = "bad_state"
    default_message = "The saved game state is damaged."


class BadSetup(RuleError):
    code = "bad_setup"
    default_message = "A game needs 2 to 5 players and a whole-number seed."


class WrongPhase(RuleError):
    code = "wrong_phase"
    default_message = "That cannot be done at this stage of the game."


class NotYourTurn(RuleError):
    code = "not_your_turn"
    default_message = "It is not your turn."


class NotInDrawColumn(RuleError):
    code = "not_in_draw_column"
    default_message = "That tile is not in the draw column."


class ForcedActionDue(RuleError):
    code = "forced_action_due"
    default_message = "The last tile of the draw column must be taken first."


class NoForcedAction(RuleError):
    code = "no_forced_action"
    default_message = "There is no last tile to take now."


class DraftPending(RuleError):
    code = "draft_pending"
    default_message = "You have already drafted a tile: confirm or undo it first."


class NoPendingDraft(RuleError):
    code = "no_pending_draft"
    default_message = "You have no draft to confirm or undo."


class TileNotInTray(RuleError):
    code = "tile_not_in_tray"
    default_message = "That tile is not in your tray."


class SpaceOccupied(RuleError):
    code = "space_occupied"
    default_message = "That space already holds a tile."


class SpaceEmpty(RuleError):
    code = "space_empty"
    default_message = "There is no tile on that space."


class IllegalTilesOnBoard(RuleError):
    code = "illegal_tiles_on_board"
    default_message = "You cannot finish while a tile on your board is illegal."


class OpenPathsOnBoard(RuleError):
    code = "open_paths_on_board"
    default_message = "At this table you can finish only when every placed path is closed."


class NothingToUndo(RuleError):
    code = "nothing_to_undo"
    default_message = "There is no change to your board to undo since your last draft."


class NothingToRedo(RuleError):
    code = "nothing_to_redo"
    default_message = "There is no undone change to redo."


class BoardFinished(RuleError):
    code = "board_finished"
    default_message = "Your board is finished and can no longer change."


class AlreadyLeft(RuleError):
    code = "already_left"
    default_message = "This seat has already left the game."


class NobodyLeft(RuleError):
    code = "nobody_left"
    default_message = "A game ends early only once a player has left it."


class YourTurnNow(RuleError):
    code = "your_turn_now"
    default_message = "It is your turn: draft now."


class NotInNextColumn(RuleError):
    code = "not_in_next_column"
    default_message = "That tile is not in the column your next turn draws from."


class BadQueue(RuleError):
    code = "bad_queue"
    default_message = "That queue of drafts is not understood."


class NothingToQueue(RuleError):
    code = "nothing_to_queue"
    default_message = "There is no choice to make at your next turn."


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
