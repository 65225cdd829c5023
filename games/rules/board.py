"""A player's 5x5 board: coloured spaces and the tiles placed on them.

Space index = row * 5 + col, rows top to bottom, columns left to right (0..24).
A cell is None (empty) or a `Placed(tile, rotation)`.

Besides its cells a board keeps bit masks (bit i = space i), kept up to date on every change, so
the analysis is a few integer operations: `occ` (occupied), `n`/`e`/`s`/`w` (the placed tile at
that space has a path on that side) and `wrong` (the tile's colour differs from the space's).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .i18n import Words, gettext_noop
from .tiles import COLOURS, TILE_COLOUR, TILE_PATHS, Colour

SIZE = 5
SPACES = 25
FULL = (1 << SPACES) - 1
ROW0 = 0b11111
ROW4 = ROW0 << 20
COL0 = sum(1 << (r * 5) for r in range(5))
COL4 = COL0 << 4


def space_of(row: int, col: int) -> int:
    return row * SIZE + col


def row_col(space: int) -> tuple[int, int]:
    return divmod(space, SIZE)


def space_words(space: int) -> str:
    """A space as players read it, and as the refusals and the pages name it: "row 2, column 3"."""
    return space_name(space).say()


def space_name(space: int) -> Words:
    """`space_words`, to say in any language (games/rules/i18n.py)."""
    row, col = divmod(space, SIZE)
    return Words(
        # Translators: a space of a player's 5 by 5 board (the game's own term), counted from
        # the top left: row 1 is the top row, column 1 the leftmost.
        gettext_noop("row %(row)d, column %(column)d"),
        {"row": row + 1, "column": col + 1},
    )


def bits(mask: int) -> list[int]:
    """Return the spaces whose bits are set in `mask`, in ascending order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Placed(NamedTuple):
    tile: int
    rotation: int

    @property
    def paths(self) -> int:
        return TILE_PATHS[self.tile][self.rotation]


Cell = Placed | None


class Board:
    """An immutable board. Build with `Board(colours, cells)`; change with `with_cells`."""

    __slots__ = ("cells", "colours", "e", "n", "occ", "s", "w", "wrong")

    colours: tuple[Colour, ...]
    cells: tuple[Cell, ...]
    # Bit sets over the 25 spaces (bit i is space i): the occupied ones, those whose tile has a
    # path to the north, east, south or west side, and those whose tile is not of their colour.
    occ: int
    n: int
    e: int
    s: int
    w: int
    wrong: int

    def __init__(self, colours: Sequence[Colour], cells: Iterable[Cell] | None = None) -> None:
        colours = tuple(colours)
        if not all(c.__class__ is Colour for c in colours):
            colours = tuple(Colour(c) for c in colours)
        if len(colours) != SPACES:
            raise ValueError("a board has 25 spaces")
        cells = (None,) * SPACES if cells is None else tuple(cells)
        if len(cells) != SPACES:
            raise ValueError("a board has 25 cells")
        set_ = object.__setattr__
        set_(self, "colours", colours)
        if not all(c is None or c.__class__ is Placed for c in cells):
            cells = tuple(None if c is None else Placed(*c) for c in cells)
        set_(self, "cells", cells)
        occ = n = e = s = w = wrong = 0
        for i, cell in enumerate(self.cells):
            if cell is None:
                continue
            bit = 1 << i
            occ |= bit
            p = TILE_PATHS[cell.tile][cell.rotation]
            if p & 1:
                n |= bit
            if p & 2:
                e |= bit
            if p & 4:
                s |= bit
            if p & 8:
                w |= bit
            if TILE_COLOUR[cell.tile] is not colours[i]:
                wrong |= bit
        for name, value in (("occ", occ), ("n", n), ("e", e), ("s", s), ("w", w)):
            set_(self, name, value)
        set_(self, "wrong", wrong)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Board is immutable")

    def with_cells(self, changes: dict[int, Cell]) -> Board:
        """Return a new board with the given spaces set (None empties a space)."""
        new = object.__new__(Board)
        cells = list(self.cells)
        occ, n, e, s, w, wrong = self.occ, self.n, self.e, self.s, self.w, self.wrong
        for i in changes:
            old = cells[i]
            if old is not None:
                keep = ~(1 << i)
                occ &= keep
                n &= keep
                e &= keep
                s &= keep
                w &= keep
                wrong &= keep
        for i, cell in changes.items():
            if cell is not None:
                bit = 1 << i
                occ |= bit
                p = TILE_PATHS[cell.tile][cell.rotation]
                if p & 1:
                    n |= bit
                if p & 2:
                    e |= bit
                if p & 4:
                    s |= bit
                if p & 8:
                    w |= bit
                if TILE_COLOUR[cell.tile] is not self.colours[i]:
                    wrong |= bit
            cells[i] = cell
        set_ = object.__setattr__
        set_(new, "colours", self.colours)
        set_(new, "cells", tuple(cells))
        set_(new, "occ", occ)
        set_(new, "n", n)
        set_(new, "e", e)
        set_(new, "s", s)
        set_(new, "w", w)
        set_(new, "wrong", wrong)
        return new

    # --- reading -----------------------------------------------------------------------------
    def placed(self) -> list[tuple[int, Placed]]:
        """Return (space, Placed) for every placed tile, by space."""
        return [(i, c) for i, c in enumerate(self.cells) if c is not None]

    def tiles(self) -> list[int]:
        return [c.tile for c in self.cells if c is not None]

    def space_of_tile(self, tile: int) -> int | None:
        for i, c in enumerate(self.cells):
            if c is not None and c.tile == tile:
                return i
        return None

    @property
    def tile_count(self) -> int:
        return self.occ.bit_count()

    def colour_mask(self, colour: Colour) -> int:
        return sum(1 << i for i, c in enumerate(self.colours) if c is colour)

    # --- value semantics ---------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.cells == other.cells and self.colours == other.colours

    def __hash__(self) -> int:
        return hash((self.colours, self.cells))

    def __repr__(self) -> str:
        rows = []
        for r in range(SIZE):
            row = []
            for c in range(SIZE):
                cell = self.cells[r * SIZE + c]
                colour = self.colours[r * SIZE + c].value[0].upper()
                row.append(colour + ("." if cell is None else f"{cell.tile}r{cell.rotation}"))
            rows.append(" ".join(f"{x:>6}" for x in row))
        return "Board(\n" + "\n".join(rows) + "\n)"

    # --- JSON --------------------------------------------------------------------------------
    def cells_to_json(self) -> list:
        return [None if c is None else [c.tile, c.rotation] for c in self.cells]

    def colours_to_json(self) -> list[str]:
        return [c.value for c in self.colours]


def colours_from_names(names: Iterable[str]) -> tuple[Colour, ...]:
    """Return colours from names; raise ValueError naming any unknown colour."""
    out = []
    for name in names:
        try:
            out.append(Colour(name))
        except ValueError:
            known = ", ".join(c.value for c in COLOURS)
            raise ValueError(f"unknown colour {name!r} (colours are {known})") from None
    return tuple(out)
