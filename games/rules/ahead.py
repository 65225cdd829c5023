"""Drafting ahead: which tiles a waiting player may queue for their next turn, and which one is
drafted for them when it begins.

Every completed draft, a confirmed draft or a forced take, takes exactly one tile from the draw
column (the rightmost column that is not empty). So the pool alone says exactly which column
will be the draw column when a seat's next turn begins, and how many tiles it will hold then:
take, from the right, one tile for each draft that comes first (`next_turn`). Which tiles
those drafts take is the other players' choice, so a queue is an ordered list of tiles of that
column, best first: the first still there when the turn begins is the one drafted
(`queued_draft`). A turn that begins with one tile left is a forced take: there is nothing to
choose, and no queue for it is accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from . import errors as err
from .deal import LAYOUTS
from .i18n import gettext_noop
from .state import DRAFTING, GameState
from .tiles import TILE_COUNT, tile_name

#: The longest queue: a column holds no more tiles (6, with 5 players).
MAX_QUEUED = max(per_column for _, _, per_column, _ in LAYOUTS.values())


@dataclass(frozen=True, slots=True)
class Queue:
    """A seat's queued draft: the tiles it wants, best first, and whether to confirm the draft
    too (else the turn waits with it pending, for the player to confirm or undo)."""

    tiles: tuple[int, ...] = ()
    confirm: bool = False

    def to_json(self) -> dict:
        return {"tiles": list(self.tiles), "confirm": self.confirm}

    @classmethod
    def from_json(cls, data: object) -> Queue:
        """The queue saved by `to_json` (an empty one for None or what is not a queue)."""
        if not isinstance(data, dict):
            return cls()
        tiles = data.get("tiles")
        if not isinstance(tiles, list) or not all(
            isinstance(tile, int) and not isinstance(tile, bool) for tile in tiles
        ):
            tiles = []
        return cls(tuple(tiles), data.get("confirm") is True)


@dataclass(frozen=True, slots=True)
class NextTurn:
    """A seat's next turn, as far as the pool tells it now."""

    seat: int
    #: The turns that come before it, the one in progress included (its draft may be pending).
    turns_before: int
    #: The draw column when it begins, and the tiles that column will hold then.
    column: int
    left: int

    @property
    def forced(self) -> bool:
        """It begins with one tile left: the server takes it for the seat (a forced take)."""
        return self.left == 1


def next_turn(state: GameState, seat: int) -> NextTurn | None:
    """Return `seat`'s next turn that has not begun (for the seat drafting now, the one after a
    full round), or None if drafting ends before it (or is over)."""
    if state.phase != DRAFTING or state.current is None:
        return None
    turns_before = (seat - state.current - 1) % state.players + 1
    # A pending draft has taken its tile already; undone, it gives it back and takes another.
    taken = turns_before - (state.pending is not None)
    for column in range(len(state.columns) - 1, -1, -1):
        size = len(state.columns[column])
        if taken < size:
            return NextTurn(seat, turns_before, column, size - taken)
        taken -= size
    return None


def check_queue(state: GameState, seat: int, queued: Iterable[object]) -> NextTurn | None:
    """Raise a RuleError unless `seat` may queue `queued` (tile ids, best first) for its next
    turn; return that turn (None for an empty queue, which clears it and is always allowed)."""
    tiles: list[int] = []
    for tile in queued:
        if not isinstance(tile, int) or isinstance(tile, bool) or not 0 <= tile < TILE_COUNT:
            raise err.BadAction(
                gettext_noop("There is no tile %(tile)s: tiles are 0 to %(last)d."),
                {"tile": repr(tile), "last": TILE_COUNT - 1},
            )
        tiles.append(tile)
    if not tiles:
        return None
    if state.phase != DRAFTING:
        raise err.WrongPhase(gettext_noop("Drafting is over: there is no next draft to queue."))
    if seat == state.current:
        raise err.YourTurnNow()
    if len(tiles) > MAX_QUEUED:
        raise err.BadQueue(
            gettext_noop("Queue at most %(most)d tiles: no column holds more."),
            {"most": MAX_QUEUED},
        )
    for index, tile in enumerate(tiles):
        if tile in tiles[:index]:
            raise err.BadQueue(
                gettext_noop("The %(tile)s is in your queue twice."),
                {"tile": tile_name(tile)},
                tile=tile,
            )
    turn = next_turn(state, seat)
    if turn is None:
        # Translators: the pool is the game's own term: the tiles left to draft, in columns.
        raise err.NothingToQueue(gettext_noop("The pool will be empty before your next turn."))
    if turn.forced:
        raise err.NothingToQueue(
            gettext_noop(
                "Your next turn begins with one tile left in column %(column)d: the server "
                "takes it for you, so there is nothing to choose."
            ),
            {"column": turn.column + 1},
        )
    for tile in tiles:
        column = column_of(state, tile)
        if column is None:
            raise err.NotInNextColumn(
                gettext_noop("The %(tile)s is not in the pool."),
                {"tile": tile_name(tile)},
                tile=tile,
            )
        if column != turn.column:
            raise err.NotInNextColumn(
                gettext_noop(
                    # Translators: a column of the pool (the game's own terms): the tiles to
                    # draft.
                    "The %(tile)s is in column %(column)d, but your next turn draws from column "
                    "%(next)d."
                ),
                {"tile": tile_name(tile), "column": column + 1, "next": turn.column + 1},
                tile=tile,
            )
    return turn


def queued_draft(state: GameState, seat: int, tiles: Iterable[int]) -> int | None:
    """Return the tile to draft for `seat` as its turn begins: the first of `tiles` still in
    the draw column. None if none is, or if the turn is not the seat's to choose now (not its
    turn, a draft pending, a forced take due)."""
    if (
        state.phase != DRAFTING
        or state.current != seat
        or state.pending is not None
        or state.forced_action() is not None
    ):
        return None
    column = state.draw_tiles()
    return next((tile for tile in tiles if tile in column), None)


def column_of(state: GameState, tile: int) -> int | None:
    """Return the pool column that holds `tile`, or None."""
    return next((index for index, column in enumerate(state.columns) if tile in column), None)


def tile_words(tile: int) -> str:
    """A tile as players say it: "red cross"."""
    return tile_name(tile).say()
