"""What each space, tray tile and pool tile shows its viewer, and what clicking it does.

Worked out here, once per drawing, so that the partials that draw them decide nothing. Each is
hashable and holds everything its partial draws but the page's URLs, the version and the
colour-blind setting, which games/drawing/pieces.py adds when it caches the markup.
"""

from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import gettext

from games import rules
from games.drawing.spaces import SpaceView, TileView
from games.drawing.view import GameView, SeatView, Selection
from games.markers import Marks
from games.rules.analysis import SpaceStatus
from infra.lru import MIB, memo


@dataclass(frozen=True, slots=True)
class SpaceControl:
    """One space of a board as its viewer sees it (templates/games/partials/space.html)."""

    index: int
    colour: str
    tile: TileView | None
    status: str  # "ok", "warning", "illegal", or "empty" without a tile
    marks: Marks | None  # drawn over its tile, each with its words as a tooltip
    selected: bool
    legal: bool  # the selected tray tile fits here, or the selected placed tile may move here
    error: bool  # the refused move was about this space of the viewer's own board
    structure: str  # "chip", "closed" or "": drawn outlined, or not
    last: bool  # its tile is the one the board's player got last
    # What clicking it does: "" (nothing), "select" or "deselect" (links) or an action posted
    # with `vals`.
    action: str
    # The button's aria-label; with no button, the tile's (an empty space names itself). A
    # button's leaves out what is wrong with its tile: its `title` says it (a tooltip over the
    # tile, and the button's description for screen readers).
    label: str
    title: str = ""
    vals: tuple[tuple[str, int], ...] = ()  # the posted action's fields, in hx-vals order
    # The selected tile's menu beside it (rotate either way, return to the tray).
    menu: bool = False

    @property
    def menu_place(self) -> str:
        """Where the menu goes: a column of buttons on the next space toward the board's middle,
        level with the tile and running toward the middle rows, so that it stays on the board."""
        row, col = divmod(self.index, 5)
        side = "left" if col >= 3 else "right"
        return f"{side} {('top', 'top', 'middle', 'bottom', 'bottom')[row]}"


@dataclass(frozen=True, slots=True)
class TrayControl:
    """One tile of a tray (templates/games/partials/tray_tile.html)."""

    tile: TileView
    selected: bool
    pending: bool  # drafted, not yet confirmed
    last: bool  # the tile its player got last
    action: str  # "" (nothing), "select" or "deselect" (links)


@dataclass(frozen=True, slots=True)
class PoolControl:
    """One tile of the pool (templates/games/partials/pool_tile.html)."""

    tile: TileView
    error: bool  # the refused draft was of this tile
    draftable: bool  # a button that drafts it


def arranging(view: GameView, seat: SeatView) -> bool:
    """Whether `view`'s viewer may arrange `seat`'s board and tray now (it is theirs)."""
    return seat.is_viewer and view.game.is_playing and not seat.seat.finished and not seat.left


def space_controls(view: GameView, seat: SeatView) -> list[SpaceControl]:
    """Return what each space of `seat`'s board shows `view`'s viewer, in board order.

    Each is kept once made, by everything its words and action depend on (`space_keys`): a
    board's 25 labels are said word by word only for the spaces that changed, not at every
    drawing (issue 36)."""
    return [space_control(key) for key in space_keys(view, seat)]


def space_control(key: tuple) -> SpaceControl:
    """What a space shows its viewer, from its key (`space_keys`)."""
    return _kept_control(*key)


def space_keys(view: GameView, seat: SeatView) -> list[tuple]:
    """For each space of `seat`'s board, in board order, everything what it shows `view`'s
    viewer depends on (the space as drawn, the tile picked up, the error, the last tile, the
    language), as plain values: a key that names its control without making it."""
    selection = view.selection if arranging(view, seat) else None
    picked = None if selection is None else (selection.tray_tile, selection.space)
    error_space = view.error_space if seat.is_viewer else None
    language = translation.get_language()
    return [
        (
            space.index,
            space.colour,
            space.tile,
            space.status,
            space.selected,
            space.legal_rotation,
            space.structure,
            space.marks,
            picked,
            space.index == error_space,
            space.tile is not None and space.tile.id == seat.last_tile,
            language,
        )
        for space in seat.spaces
    ]


@memo(max_bytes=4 * MIB)
def _kept_control(
    index: int,
    colour: str,
    tile: TileView | None,
    status: SpaceStatus | None,
    selected: bool,
    legal_rotation: int | None,
    structure: str,
    marks: Marks | None,
    picked: tuple[int | None, int | None] | None,
    error: bool,
    last: bool,
    language: str,
) -> SpaceControl:
    space = SpaceView(
        index=index,
        colour=colour,
        tile=tile,
        status=status,
        selected=selected,
        legal_rotation=legal_rotation,
        structure=structure,
        marks=marks,
    )
    selection = None if picked is None else Selection(*picked)
    return _space_control(space, selection, error, tile.id if last and tile else None)


def _space_control(
    space: SpaceView, selection: Selection | None, error: bool, last_tile: int | None
) -> SpaceControl:
    index, tile = space.index, space.tile
    # On the viewer's board to arrange every tile is a button, which says the marks in its title.
    label = space.label if selection is None else space.name
    last = tile is not None and tile.id == last_tile
    if last:
        # Translators: a placed tile's words, and that it is the one the player got last.
        label = gettext("%(tile)s, the last tile this player got") % {"tile": label}
    vals = ()
    # With a tile picked up, "it" in a space's label is that tile (its own button is pressed).
    if selection is None:  # not the viewer's board to arrange: a drawing only
        action = ""
    elif selection.tray_tile is not None and tile is None:
        action = "place"
        rotation = space.legal_rotation or 0
        vals = (("tile_id", selection.tray_tile), ("space", index), ("rotation", rotation))
        # Translators: the label of an empty space with a tile picked up from the tray ("it").
        if space.legal_rotation is not None:
            label = gettext("Place it on the %(space)s (fits)") % {"space": label}
        else:
            label = gettext("Place it on the %(space)s") % {"space": label}
    elif selection.space is not None and space.selected:
        # Its menu does the rotating and returning; the tile itself puts it down again.
        action, label = "deselect", gettext("Put down the %(tile)s") % {"tile": label}
    elif selection.space is not None and tile is not None:
        action, vals = "swap", (("space_a", selection.space), ("space_b", index))
        # Translators: the label of a placed tile with another placed tile picked up ("it").
        label = gettext("Swap it with the %(tile)s") % {"tile": label}
    elif selection.space is not None:
        action, vals = "move", (("from_space", selection.space), ("to_space", index))
        # Translators: the label of an empty space with a placed tile picked up ("it").
        if space.legal_rotation is not None:
            label = gettext("Move it to the %(space)s (fits)") % {"space": label}
        else:
            label = gettext("Move it to the %(space)s") % {"space": label}
    elif tile is not None:
        action, label = "select", gettext("Select the %(tile)s") % {"tile": label}
    else:
        action = ""
    status = space.status
    return SpaceControl(
        index=index,
        colour=space.colour,
        tile=tile,
        status=status.status if status else "empty",
        marks=space.marks,
        selected=space.selected,
        legal=space.legal_rotation is not None,
        error=error,
        structure=space.structure if tile is not None else "",
        last=last,
        action=action,
        # A tile inside a button describes itself; alone, it says where it is and how it fares.
        label=label if action or tile is not None else "",
        vals=vals,
        title=space.marks.words() if space.marks and selection is not None else "",
        menu=action == "deselect",
    )


def tray_controls(view: GameView, seat: SeatView) -> list[TrayControl]:
    """Return what each tile of `seat`'s tray shows `view`'s viewer."""
    mine = arranging(view, seat)
    chosen = view.selection.tray_tile if mine else None
    return [
        TrayControl(
            tile=tile,
            selected=tile.id == chosen,
            pending=tile.id == seat.pending_tile,
            last=tile.id == seat.last_tile,
            action=("deselect" if tile.id == chosen else "select") if mine else "",
        )
        for tile in seat.tray
    ]


def pool_controls(view: GameView) -> list[list[PoolControl]]:
    """Return what each tile of the pool shows `view`'s viewer, column by column."""
    viewer_seat = view.viewer_seat
    drafting = (
        view.my_turn and viewer_seat.pending_tile is None and view.game.phase == rules.DRAFTING
    )
    return [
        [
            PoolControl(
                tile=tile,
                error=tile.id == view.error_tile,
                # The last tile of a column is taken by the server, not drafted.
                draftable=drafting and number == view.draw_column and len(column) > 1,
            )
            for tile in column
        ]
        for number, column in enumerate(view.columns)
    ]
