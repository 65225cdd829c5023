"""Actions: what a seat can do, as frozen dataclasses with a plain JSON form.

JSON form: {"type": <type>, <field>: <int>, ...} with the dataclass field names, e.g.
{"type": "place", "tile_id": 7, "space": 12, "rotation": 1}. `action_from_json` parses it and
raises BadAction with a readable message on anything else.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import ClassVar

from .errors import BadAction
from .i18n import gettext_noop


@dataclass(frozen=True, slots=True)
class Action:
    type: ClassVar[str] = ""
    #: True for actions that only change the acting seat's own board and tray.
    arranging: ClassVar[bool] = False

    def to_json(self) -> dict:
        out: dict = {"type": self.type}
        for f in fields(self):
            out[f.name] = getattr(self, f.name)
        return out


@dataclass(frozen=True, slots=True)
class Draft(Action):
    """Take a tile from the draw column into the tray; pending until ConfirmDraft/UndoDraft."""

    type: ClassVar[str] = "draft"
    tile_id: int


@dataclass(frozen=True, slots=True)
class ConfirmDraft(Action):
    """Confirm the pending draft: the turn passes to the next seat."""

    type: ClassVar[str] = "confirm_draft"


@dataclass(frozen=True, slots=True)
class UndoDraft(Action):
    """Put the pending drafted tile back where it was in the draw column."""

    type: ClassVar[str] = "undo_draft"


@dataclass(frozen=True, slots=True)
class TakeLast(Action):
    """The forced take of the last tile of the draw column (applied by the platform)."""

    type: ClassVar[str] = "take_last"
    tile_id: int


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Put a tray tile on an empty space with a rotation (0-3 quarter turns clockwise)."""

    type: ClassVar[str] = "place"
    arranging: ClassVar[bool] = True
    tile_id: int
    space: int
    rotation: int = 0


@dataclass(frozen=True, slots=True)
class Rotate(Action):
    """Turn a placed tile clockwise by 1-3 quarter turns."""

    type: ClassVar[str] = "rotate"
    arranging: ClassVar[bool] = True
    space: int
    quarter_turns: int = 1


@dataclass(frozen=True, slots=True)
class Move(Action):
    """Move a placed tile to an empty space, keeping its rotation."""

    type: ClassVar[str] = "move"
    arranging: ClassVar[bool] = True
    from_space: int
    to_space: int


@dataclass(frozen=True, slots=True)
class Swap(Action):
    """Exchange two placed tiles, each keeping its rotation."""

    type: ClassVar[str] = "swap"
    arranging: ClassVar[bool] = True
    space_a: int
    space_b: int


@dataclass(frozen=True, slots=True)
class Return(Action):
    """Take a placed tile back to the tray."""

    type: ClassVar[str] = "return"
    arranging: ClassVar[bool] = True
    space: int


@dataclass(frozen=True, slots=True)
class Clear(Action):
    """Return every placed tile to the tray (space order)."""

    type: ClassVar[str] = "clear"
    arranging: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Undo(Action):
    """Step the seat's board and tray back to before its last arranging action (since its
    tiles last changed: a draft, a forced take, an undone draft)."""

    type: ClassVar[str] = "undo"
    arranging: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Redo(Action):
    """Step forward again through what Undo stepped back, until a new arranging action."""

    type: ClassVar[str] = "redo"
    arranging: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Finish(Action):
    """Submit the board (finishing phase only, no illegal tile, and with the table's
    strict-finish option no open path); it is then locked."""

    type: ClassVar[str] = "finish"


@dataclass(frozen=True, slots=True)
class Resign(Action):
    """The seat leaves the game (a resignation, or the platform handing an absent player's seat
    to its stand-in): it is ranked after every seat that stays, and still plays on in the rules
    (someone else, the platform's stand-in, makes its moves). The game ends when at most one
    seat has not left."""

    type: ClassVar[str] = "resign"


@dataclass(frozen=True, slots=True)
class Conclude(Action):
    """The platform ends the game now, every board as it stands (allowed once a seat has left:
    the platform ends a game when no person is left playing it)."""

    type: ClassVar[str] = "conclude"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls
    for cls in (
        Draft,
        ConfirmDraft,
        UndoDraft,
        TakeLast,
        Place,
        Rotate,
        Move,
        Swap,
        Return,
        Clear,
        Undo,
        Redo,
        Finish,
        Resign,
        Conclude,
    )
}


def action_from_json(data: object) -> Action:
    """Return the action described by a JSON dict; raise BadAction saying what is wrong."""
    if isinstance(data, Action):
        return data
    if not isinstance(data, dict):
        raise BadAction(gettext_noop('An action must be a JSON object with a "type".'))
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(ACTION_TYPES)
        raise BadAction(
            gettext_noop("Unknown action type %(kind)s (known: %(known)s)."),
            {"kind": repr(kind), "known": known},
        )
    names = [f.name for f in fields(cls)]
    extra = set(data) - set(names) - {"type"}
    if extra:
        raise BadAction(
            gettext_noop("Unexpected field(s) for %(kind)s: %(fields)s."),
            {"kind": kind, "fields": ", ".join(sorted(map(str, extra)))},
        )
    kwargs = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is not MISSING:
                continue
            raise BadAction(
                gettext_noop("The %(kind)s action needs the field %(field)s."),
                {"kind": kind, "field": repr(f.name)},
            )
        value = data[f.name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadAction(
                gettext_noop("The field %(field)s of %(kind)s must be a whole number."),
                {"field": repr(f.name), "kind": kind},
            )
        kwargs[f.name] = value
    return cls(**kwargs)
