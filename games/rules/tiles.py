"""The 60 tiles of Microchip: colours, kinds, sides, rotations and path masks.

Conventions (see docs/rules.md):

- A side is a bit: N=1, E=2, S=4, W=8. A tile's paths at a rotation are a 4-bit mask of sides.
- Each kind has a base orientation (rotation 0): its paths start at north and go clockwise:
  end N, straight N+S, corner N+E, tee N+E+S, cross N+E+S+W.
- Rotation r (0..3) is r quarter turns clockwise from the base: N becomes E, E becomes S, ...
- Tile ids are stable: colour-major (blue 0-11, red 12-23, green 24-35, yellow 36-47,
  pink 48-59); inside a colour: 4 ends, 2 straights, 2 corners, 3 tees, 1 cross.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .i18n import Words, gettext_noop

N, E, S, W = 1, 2, 4, 8
SIDES = (N, E, S, W)
SIDE_LETTERS = {N: "N", E: "E", S: "S", W: "W"}
OPPOSITE = {N: S, E: W, S: N, W: E}


class Colour(StrEnum):
    BLUE = "blue"
    RED = "red"
    GREEN = "green"
    YELLOW = "yellow"
    PINK = "pink"


class Kind(StrEnum):
    END = "end"
    STRAIGHT = "straight"
    CORNER = "corner"
    TEE = "tee"
    CROSS = "cross"


COLOURS: tuple[Colour, ...] = tuple(Colour)
KINDS: tuple[Kind, ...] = tuple(Kind)

#: Each colour's name, marked for translation.
COLOUR_NAMES: dict[Colour, str] = {
    # Translators: a tile's colour, alone (the game's tiles are blue, red, green, yellow, pink).
    Colour.BLUE: gettext_noop("blue"),
    Colour.RED: gettext_noop("red"),
    Colour.GREEN: gettext_noop("green"),
    Colour.YELLOW: gettext_noop("yellow"),
    Colour.PINK: gettext_noop("pink"),
}
#: Each kind's name, marked for translation.
KIND_NAMES: dict[Kind, str] = {
    # Translators: a tile's kind, alone: the game's own terms for the shape of its paths: an
    # "end" has one path, a "straight" two in a line, a "corner" two at a right angle, a "tee"
    # three, a "cross" four.
    Kind.END: gettext_noop("end"),
    Kind.STRAIGHT: gettext_noop("straight"),
    Kind.CORNER: gettext_noop("corner"),
    Kind.TEE: gettext_noop("tee"),
    Kind.CROSS: gettext_noop("cross"),
}
#: Each tile's name by colour and kind ("red cross"), whole, so that a language may agree its
#: colour with its kind.
TILE_NAMES: dict[tuple[Colour, Kind], str] = {
    # Translators: a tile's name: its colour and its kind (the game's own terms: an "end" has
    # one path, a "straight" two in a line, a "corner" two at a right angle, a "tee" three, a
    # "cross" four). Sentences put it in their own words ("The %(tile)s is not in the pool."):
    # a name that works without an article, or with the one the sentences use, is best.
    (Colour.BLUE, Kind.END): gettext_noop("blue end"),
    (Colour.BLUE, Kind.STRAIGHT): gettext_noop("blue straight"),
    (Colour.BLUE, Kind.CORNER): gettext_noop("blue corner"),
    (Colour.BLUE, Kind.TEE): gettext_noop("blue tee"),
    (Colour.BLUE, Kind.CROSS): gettext_noop("blue cross"),
    (Colour.RED, Kind.END): gettext_noop("red end"),
    (Colour.RED, Kind.STRAIGHT): gettext_noop("red straight"),
    (Colour.RED, Kind.CORNER): gettext_noop("red corner"),
    (Colour.RED, Kind.TEE): gettext_noop("red tee"),
    (Colour.RED, Kind.CROSS): gettext_noop("red cross"),
    (Colour.GREEN, Kind.END): gettext_noop("green end"),
    (Colour.GREEN, Kind.STRAIGHT): gettext_noop("green straight"),
    (Colour.GREEN, Kind.CORNER): gettext_noop("green corner"),
    (Colour.GREEN, Kind.TEE): gettext_noop("green tee"),
    (Colour.GREEN, Kind.CROSS): gettext_noop("green cross"),
    (Colour.YELLOW, Kind.END): gettext_noop("yellow end"),
    (Colour.YELLOW, Kind.STRAIGHT): gettext_noop("yellow straight"),
    (Colour.YELLOW, Kind.CORNER): gettext_noop("yellow corner"),
    (Colour.YELLOW, Kind.TEE): gettext_noop("yellow tee"),
    (Colour.YELLOW, Kind.CROSS): gettext_noop("yellow cross"),
    (Colour.PINK, Kind.END): gettext_noop("pink end"),
    (Colour.PINK, Kind.STRAIGHT): gettext_noop("pink straight"),
    (Colour.PINK, Kind.CORNER): gettext_noop("pink corner"),
    (Colour.PINK, Kind.TEE): gettext_noop("pink tee"),
    (Colour.PINK, Kind.CROSS): gettext_noop("pink cross"),
}

#: Paths of each kind at rotation 0.
BASE_PATHS: dict[Kind, int] = {
    Kind.END: N,
    Kind.STRAIGHT: N | S,
    Kind.CORNER: N | E,
    Kind.TEE: N | E | S,
    Kind.CROSS: N | E | S | W,
}
#: Copies of each kind per colour (4 + 2 + 2 + 3 + 1 = 12).
COPIES: dict[Kind, int] = {
    Kind.END: 4,
    Kind.STRAIGHT: 2,
    Kind.CORNER: 2,
    Kind.TEE: 3,
    Kind.CROSS: 1,
}
#: A tile's value: its number of connections.
VALUE: dict[Kind, int] = {kind: BASE_PATHS[kind].bit_count() for kind in KINDS}

TILES_PER_COLOUR = 12
TILE_COUNT = 60


def rotate_paths(paths: int, quarter_turns: int = 1) -> int:
    """Return the path mask turned clockwise by `quarter_turns` quarter turns."""
    for _ in range(quarter_turns % 4):
        paths = ((paths << 1) | (paths >> 3)) & 15
    return paths


def paths_to_letters(paths: int) -> str:
    """Return a path mask as letters in NESW order, e.g. 7 -> "NES"."""
    return "".join(SIDE_LETTERS[side] for side in SIDES if paths & side)


def letters_to_paths(letters: str) -> int:
    """Return the path mask for letters such as "NES"; raise ValueError on anything else."""
    if not isinstance(letters, str):
        raise ValueError("paths must be a string of the letters N, E, S, W")
    mask = 0
    for ch in letters.upper():
        side = {"N": N, "E": E, "S": S, "W": W}.get(ch)
        if side is None:
            raise ValueError(f"paths may only use the letters N, E, S, W, not {ch!r}")
        if mask & side:
            raise ValueError(f"paths name the side {ch} twice")
        mask |= side
    return mask


#: KIND_PATHS[kind][rotation] -> path mask.
KIND_PATHS: dict[Kind, tuple[int, int, int, int]] = {
    kind: tuple(rotate_paths(BASE_PATHS[kind], r) for r in range(4))  # type: ignore[misc]
    for kind in KINDS
}
#: DISTINCT_ROTATIONS[kind]: the lowest rotation of each distinct orientation.
DISTINCT_ROTATIONS: dict[Kind, tuple[int, ...]] = {
    kind: tuple(r for r in range(4) if KIND_PATHS[kind].index(KIND_PATHS[kind][r]) == r)
    for kind in KINDS
}


def rotation_for(kind: Kind, paths: int) -> int | None:
    """Return the lowest rotation of `kind` whose paths are `paths`, or None if there is none."""
    try:
        return KIND_PATHS[kind].index(paths)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Tile:
    """One physical tile: a stable id, a kind and a colour."""

    id: int
    kind: Kind
    colour: Colour

    @property
    def value(self) -> int:
        return VALUE[self.kind]

    def paths(self, rotation: int = 0) -> int:
        return KIND_PATHS[self.kind][rotation]

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind.value, "colour": self.colour.value}


def _make_tiles() -> tuple[Tile, ...]:
    tiles: list[Tile] = []
    for colour in COLOURS:
        for kind in KINDS:
            for _ in range(COPIES[kind]):
                tiles.append(Tile(len(tiles), kind, colour))
    return tuple(tiles)


#: TILES[id] is the tile with that id.
TILES: tuple[Tile, ...] = _make_tiles()
#: TILE_PATHS[id][rotation] -> path mask (a flat table for the hot paths).
TILE_PATHS: tuple[tuple[int, int, int, int], ...] = tuple(KIND_PATHS[t.kind] for t in TILES)
TILE_COLOUR: tuple[Colour, ...] = tuple(t.colour for t in TILES)
TILE_VALUE: tuple[int, ...] = tuple(t.value for t in TILES)


def tile_name(tile_id: int) -> Words:
    """A tile as players say it, "red cross", to say in any language (games/rules/i18n.py)."""
    tile = TILES[tile_id]
    return Words(TILE_NAMES[tile.colour, tile.kind])


def tile_ids_of(kind: Kind, colour: Colour) -> tuple[int, ...]:
    """Return the ids of every tile of this kind and colour, in id order."""
    return tuple(t.id for t in TILES if t.kind == kind and t.colour == colour)


assert len(TILES) == TILE_COUNT
assert all(sum(1 for t in TILES if t.colour == c) == TILES_PER_COLOUR for c in COLOURS)
assert all(TILE_NAMES[c, k] == f"{c.value} {k.value}" for c in COLOURS for k in KINDS)
