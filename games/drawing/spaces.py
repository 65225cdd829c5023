"""A board's spaces and tiles as drawn, and the words a screen reader says for them.

`space_views` works out, once per board, what each space shows: its tile, how the tile fares
(the rules' diagnosis and games/markers.py), the structure it is part of, where a selected tile
fits. The words are said in the active language when read, not kept with the view, which is drawn
in many; a tile's label is kept per language (`_tile_label`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import (
    get_language,
    gettext,
    gettext_lazy,
    ngettext,
    pgettext,
    pgettext_lazy,
)

from games import rules
from games.markers import Marks, board_marks
from games.move_log import tile_words
from games.rules.analysis import SpaceStatus
from games.rules.tiles import COLOUR_NAMES, TILE_PATHS, TILES, paths_to_letters
from infra.lru import MIB, memo

SIDE_NAMES = {
    # Translators: a side of a tile, in a list of the sides its paths run to ("north, east").
    "N": gettext_lazy("north"),
    "E": gettext_lazy("east"),
    "S": gettext_lazy("south"),
    "W": gettext_lazy("west"),
}


@dataclass(frozen=True)
class TileView:
    id: int
    kind: str
    colour: str
    paths: int
    rotation: int = 0

    @property
    def value(self):
        return TILES[self.id].value

    @property
    def name(self) -> str:
        """The tile's name in the active language: "red cross"."""
        return tile_words(self.id)

    @property
    def label(self):
        """The tile as a screen reader names it, in the active language."""
        return _tile_label(self.id, self.paths, get_language())


@memo(max_bytes=MIB // 4)  # the tiles, their turns and the languages: a few hundred labels
def _tile_label(tile_id: int, paths: int, language: str) -> str:
    """`TileView.label`, said once per process in each language (`language`, the active one,
    keys it): the words of every tile drawn were said anew, side by side, at every drawing
    (issue 36: a twentieth of a push's CPU)."""
    sides = ", ".join(str(SIDE_NAMES[letter]) for letter in paths_to_letters(paths))
    # Translators: a tile as a screen reader names it: its name and the sides its paths run
    # to ("red corner, paths north, east"); "paths" however many there are.
    return gettext("%(tile)s, paths %(sides)s") % {"tile": tile_words(tile_id), "sides": sides}


def tile_view(tile_id: int, rotation: int = 0) -> TileView:
    tile = TILES[tile_id]
    return TileView(
        tile_id, tile.kind.value, tile.colour.value, TILE_PATHS[tile_id][rotation], rotation
    )


@dataclass
class SpaceView:
    index: int
    colour: str
    tile: TileView | None
    status: SpaceStatus | None
    selected: bool = False
    # With a tray tile selected: the rotation that fits here legally, or None. With a placed
    # tile selected: its rotation, if it may be moved here legally.
    legal_rotation: int | None = None
    # "chip" (the structure that scores), "closed" (another closed one), or "" (open, or empty).
    structure: str = ""
    marks: Marks | None = None  # what is wrong with its tile, side by side (games/markers.py)

    @property
    def row(self):
        return self.index // 5

    @property
    def col(self):
        return self.index % 5

    @property
    def label(self):
        """The tile and the space, where it is, how the tile fares and what is wrong with it."""
        return self.words(marks=True)

    @property
    def name(self):
        """The label without what is wrong with the tile (a control carries it as its title)."""
        return self.words(marks=False)

    def words(self, *, marks: bool) -> str:
        where = space_words(self.index)
        colour = colour_words(self.colour)
        if self.tile is None:
            # Translators: an empty space of a player's board, as a screen reader names it:
            # "empty red space, row 2, column 3" (the space's colour).
            return gettext("empty %(colour)s space, %(where)s") % {"colour": colour, "where": where}
        status = STATUS_WORDS[self.status.status if self.status else "ok"]
        # Translators: a placed tile as a screen reader names it: the tile ("red corner, paths
        # north, east"), the colour of its space, where it is, and how it fares ("ok",
        # "warning", "illegal").
        text = gettext("%(tile)s on %(colour)s space, %(where)s: %(status)s") % {
            "tile": self.tile.label,
            "colour": colour,
            "where": where,
            "status": status,
        }
        if self.marks and marks:
            # Translators: a placed tile's words followed by what is wrong with it.
            text = pgettext("marks of a tile", "%(tile)s (%(marks)s)") % {
                "tile": text,
                "marks": self.marks.words(),
            }
        if self.structure in STRUCTURE_WORDS:
            text = STRUCTURE_WORDS[self.structure] % {"tile": text}
        return text


def space_words(space: int) -> str:
    """A space in the active language: "row 2, column 3"."""
    return rules.space_name(space).say(gettext, ngettext)


def colour_words(colour: str) -> str:
    """A colour's name in the active language: "red"."""
    return gettext(COLOUR_NAMES[rules.Colour(colour)])


STRUCTURE_WORDS = {
    # Translators: a placed tile's words, and that it is part of the chip (the structure of
    # tiles that scores).
    "chip": pgettext_lazy("tile in a structure", "%(tile)s, in the chip"),
    # Translators: a placed tile's words, and that it is part of a closed structure (one whose
    # paths all end on tiles of it) that is not the chip.
    "closed": pgettext_lazy("tile in a structure", "%(tile)s, in a closed structure"),
}
STATUS_WORDS = {
    # Translators: how a placed tile fares, in its words for a screen reader: "ok", "warning"
    # (something is wrong that placing more tiles may mend), "illegal".
    "ok": pgettext_lazy("status of a placed tile", "ok"),
    "warning": pgettext_lazy("status of a placed tile", "warning"),
    "illegal": pgettext_lazy("status of a placed tile", "illegal"),
}


def space_views(
    board: rules.Board, *, selected: int | None = None, legal: dict[int, int] | None = None
) -> list[SpaceView]:
    """Return the 25 spaces of a rules Board as drawn: tile, marker, selection, where it fits,
    and the structure it is part of."""
    statuses = rules.diagnose(board)
    marks = board_marks(board)
    legal = legal or {}
    chip = rules.find_chip(board.occ, board.n, board.e, board.s, board.w).mask
    closed = 0
    for structure in rules.structures(board):
        if structure.closed:
            closed |= structure.mask
    closed &= ~chip
    return [
        SpaceView(
            index=index,
            colour=board.colours[index].value,
            tile=None if cell is None else tile_view(cell.tile, cell.rotation),
            status=statuses[index],
            selected=selected == index,
            legal_rotation=legal.get(index),
            structure="chip" if chip >> index & 1 else "closed" if closed >> index & 1 else "",
            marks=marks[index],
        )
        for index, cell in enumerate(board.cells)
    ]


class LazySpaces(Sequence[SpaceView]):
    """`space_views(board, ...)`, made the first time they are read. A version's view is built
    for all its boards, but a move's answer and a push draw only the boards it changed, often one
    of two or of five; diagnosing and marking each of the others cost about 0.1 ms (issue 36)."""

    __slots__ = ("_board", "_legal", "_made", "_selected")

    def __init__(
        self, board: rules.Board, *, selected: int | None = None, legal: dict | None = None
    ):
        self._board, self._selected, self._legal = board, selected, legal
        self._made: list[SpaceView] | None = None

    def _spaces(self) -> list[SpaceView]:
        if self._made is None:  # made twice at worst by two threads, the same both times
            self._made = space_views(self._board, selected=self._selected, legal=self._legal)
        return self._made

    def __getitem__(self, index):
        return self._spaces()[index]

    def __len__(self) -> int:
        return len(self._board.cells)

    def __iter__(self):
        return iter(self._spaces())

    def __eq__(self, other) -> bool:
        if isinstance(other, (LazySpaces, list)):
            return self._spaces() == list(other)
        return NotImplemented

    __hash__ = None  # as a list's

    def __repr__(self) -> str:
        return f"LazySpaces({self._spaces()!r})"
