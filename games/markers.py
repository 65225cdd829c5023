"""The markers on a placed tile, side by side and in words: what is drawn over it and said of it.

games.rules.analysis.side_markers says which side of each tile is wrong or open; here that
becomes a tile's `Marks`, drawn by games/drawing/svg.py (stripes in the space's
colour for a wrong colour, a broken-circuit icon on each wrong side, a warning triangle on each
open side, each with its words as a tooltip) and said in the space's label (games/drawing/spaces.py)
in the same words, so what a screen reader hears is what a pointer's tooltip shows.
"""

from __future__ import annotations

from typing import NamedTuple

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from games.rules.analysis import side_markers
from games.rules.board import Board
from games.rules.tiles import COLOUR_NAMES, SIDES, TILE_COLOUR, Colour, E, N, S, W
from infra.words import and_list

SIDE_WORDS = {
    # Translators: a side of a tile, in a list of the sides its paths run to ("north, east").
    N: gettext_lazy("north"),
    E: gettext_lazy("east"),
    S: gettext_lazy("south"),
    W: gettext_lazy("west"),
}
# Where the touching tile is, seen from the tile.
BEYOND = {
    # Translators: where a touching tile is, seen from a tile: "the tile above", "the tiles
    # above and to the right".
    N: pgettext_lazy("where a touching tile is", "above"),
    E: pgettext_lazy("where a touching tile is", "to the right"),
    S: pgettext_lazy("where a touching tile is", "below"),
    W: pgettext_lazy("where a touching tile is", "to the left"),
}

COLOUR = "colour"
BROKEN = "broken"
OPEN = "open"


class Mark(NamedTuple):
    """One thing drawn over a tile."""

    kind: str  # COLOUR (the stripes), BROKEN or OPEN (an icon on `side`)
    side: int  # N, E, S or W; 0 for the stripes
    words: str  # its tooltip


class Marks(NamedTuple):
    """What is wrong with a placed tile. Sides are masks N=1, E=2, S=4, W=8; no side is in two
    of `off`, `clash` and `open` (see side_markers)."""

    colour: str  # the tile's colour
    space: str  # the space's colour
    paths: int  # the tile's paths (whether a clash is its path or its blank side)
    off: int = 0  # a path runs off the board
    clash: int = 0  # disagrees with the touching tile
    open: int = 0  # a path points at an empty space

    @property
    def wrong_colour(self) -> bool:
        return self.colour != self.space

    @property
    def broken(self) -> int:
        return self.off | self.clash

    def each(self) -> tuple[Mark, ...]:
        """The marks as drawn: the stripes, then one icon per marked side, N, E, S, W."""
        marks = [Mark(COLOUR, 0, self._colour_words())] if self.wrong_colour else []
        for side in SIDES:
            if side & self.broken:
                marks.append(Mark(BROKEN, side, self._broken_words(side)))
            elif side & self.open:
                marks.append(Mark(OPEN, side, _open_words(side)))
        return tuple(marks)

    def words(self) -> str:
        """Every mark in words, the sides of each kind said together, for the space's label."""
        parts = [self._colour_words()] if self.wrong_colour else []
        for sides in (self.off, self.clash & self.paths, self.clash & ~self.paths & 15):
            if sides:
                parts.append(self._broken_words(sides))
        if self.open:
            parts.append(_open_words(self.open))
        return "; ".join(parts)

    def _colour_words(self) -> str:
        # Translators: what is wrong with a placed tile: its colour is not its space's ("a red
        # tile on a blue space").
        return gettext("wrong colour: a %(tile)s tile on a %(space)s space") % {
            "tile": _colour(self.colour),
            "space": _colour(self.space),
        }

    def _broken_words(self, sides: int) -> str:
        """Words for `sides`, all off the board, all paths meeting blanks, or all blank sides
        meeting paths."""
        listed = [side for side in SIDES if sides & side]
        count = len(listed)
        words = {
            "sides": and_list(SIDE_WORDS[x] for x in listed),
            "beyond": and_list(BEYOND[x] for x in listed),
        }
        if sides & self.off:
            # Translators: what is wrong with a placed tile: a path of it on this side (or
            # these sides: "north and east") runs off the board.
            message = ngettext(
                "broken connection on its %(sides)s side: the path runs off the board",
                "broken connections on its %(sides)s sides: the paths run off the board",
                count,
            )
        elif sides & self.paths:
            # Translators: what is wrong with a placed tile: a path of it meets the blank side
            # of the tile beside it ("above", "to the right", "above and below").
            message = ngettext(
                "broken connection on its %(sides)s side: it meets the blank side of the tile "
                "%(beyond)s",
                "broken connections on its %(sides)s sides: they meet blank sides of the tiles "
                "%(beyond)s",
                count,
            )
        else:
            # Translators: what is wrong with a placed tile: a blank side of it meets a path of
            # the tile beside it ("above", "to the right", "above and below").
            message = ngettext(
                "broken connection on its %(sides)s side: its blank side meets a path of the "
                "tile %(beyond)s",
                "broken connections on its %(sides)s sides: its blank sides meet paths of the "
                "tiles %(beyond)s",
                count,
            )
        return message % words


def _open_words(sides: int) -> str:
    listed = [SIDE_WORDS[side] for side in SIDES if sides & side]
    # Translators: what is wrong with a placed tile: its paths on these sides ("north and
    # east") point at empty spaces.
    message = ngettext("path open to the %(sides)s", "paths open to the %(sides)s", len(listed))
    return message % {"sides": and_list(listed)}


def _colour(colour: str) -> str:
    """A colour's name in the active language."""
    return gettext(COLOUR_NAMES[Colour(colour)])


def board_marks(board: Board) -> list[Marks | None]:
    """Return, per space, the marks of its placed tile: None when it is empty or all is well."""
    sides = side_markers(board)
    off, clash, opened = sides.off_board, sides.mismatch, sides.open_path
    wrong_side = sides.wrong.tiles | opened.tiles
    out: list[Marks | None] = [None] * 25
    for space, placed in board.placed():
        if not (board.wrong | wrong_side) >> space & 1:
            continue
        out[space] = Marks(
            TILE_COLOUR[placed.tile].value,
            board.colours[space].value,
            placed.paths,
            off.at(space),
            clash.at(space),
            opened.at(space),
        )
    return out
