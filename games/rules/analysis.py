"""What a board is worth and what is wrong with it: markers, structures, microchip, score.

Everything works on the board's bit masks (see board.py): bit i is space i = row * 5 + col.
A tile at space i with a north path meets the tile at i - 5 when that one has a south path, etc.

- A connection is *met* when the touching tile has a path on the facing side.
- A connection is *open* when it points at an empty space (warning), *off board* when it points
  past the edge (illegal), and a *mismatch* when a touching tile has a blank on the facing side
  (illegal, for both tiles: each has a side that disagrees with the other).
- A structure is a set of tiles joined by met connections; it is closed when every connection of
  every tile in it is met. The microchip is the closed structure with the most tiles, then the
  highest value. Its value is the sum of its tiles' connections.
"""

from __future__ import annotations

from typing import NamedTuple

from .board import COL0, COL4, FULL, ROW0, ROW4, Board, bits
from .tiles import DISTINCT_ROTATIONS, TILE_COLOUR, TILE_PATHS, TILES

NOT_COL0 = FULL & ~COL0
NOT_COL4 = FULL & ~COL4

OK = "ok"
WARNING = "warning"
ILLEGAL = "illegal"
WRONG_COLOUR = "wrong_colour"
OFF_BOARD = "off_board"
MISMATCH = "mismatch"
OPEN_PATH = "open_path"


class Chip(NamedTuple):
    """The microchip of a board: its spaces as a mask, its tile count and its value."""

    mask: int
    tiles: int
    value: int


NO_CHIP = Chip(0, 0, 0)


def find_chip(occ: int, n: int, e: int, s: int, w: int) -> Chip:
    """Return the microchip of a board given as masks (NO_CHIP if no structure is closed).

    This is the one scoring routine of the engine; `score` and `results` call it.
    """
    # Met connections, per side (a bit for the tile that owns the connection).
    nm = n & (s << 5)
    sm = s & (n >> 5)
    em = e & (w >> 1) & NOT_COL4
    wm = w & (e << 1) & NOT_COL0
    # Tiles with at least one unmet connection (open, off board or mismatch).
    bad = (n ^ nm) | (s ^ sm) | (e ^ em) | (w ^ wm)
    if bad == occ:
        return NO_CHIP
    # Everything joined to a bad tile is in an unclosed structure.
    t = bad
    while True:
        t2 = t | ((t & nm) >> 5) | ((t & sm) << 5) | ((t & em) << 1) | ((t & wm) >> 1)
        if t2 == t:
            break
        t = t2
    good = occ & ~t
    best_mask = best_tiles = best_value = 0
    while good:
        c = good & -good
        while True:
            c2 = c | ((c & nm) >> 5) | ((c & sm) << 5) | ((c & em) << 1) | ((c & wm) >> 1)
            if c2 == c:
                break
            c = c2
        good ^= c
        size = c.bit_count()
        if size >= best_tiles:
            value = (n & c).bit_count() + (e & c).bit_count() + (s & c).bit_count()
            value += (w & c).bit_count()
            if size > best_tiles or value > best_value:
                best_mask, best_tiles, best_value = c, size, value
    return Chip(best_mask, best_tiles, best_value)


def board_chip(board: Board) -> Chip:
    return find_chip(board.occ, board.n, board.e, board.s, board.w)


class Score(NamedTuple):
    score: int
    chip_tiles: int
    chip_value: int
    penalty_tiles: int
    chip_mask: int


def score(board: Board, tray_count: int) -> Score:
    """Return the score of a board whose owner also holds `tray_count` tiles in the tray.

    Score = chip value - 2 x (owned tiles not in the chip). Paths only: colours do not count
    here (a wrong-coloured tile blocks finishing, see `can_finish`).
    """
    mask, tiles, value = find_chip(board.occ, board.n, board.e, board.s, board.w)
    penalty = board.occ.bit_count() + tray_count - tiles
    return Score(value - 2 * penalty, tiles, value, penalty, mask)


# --- markers -----------------------------------------------------------------------------------


class Markers(NamedTuple):
    """Per-reason masks of the placed tiles (bit i = space i)."""

    wrong_colour: int
    off_board: int
    mismatch: int
    open_path: int

    @property
    def illegal(self) -> int:
        return self.wrong_colour | self.off_board | self.mismatch

    @property
    def warning(self) -> int:
        return self.open_path & ~self.illegal


def markers(board: Board) -> Markers:
    """Return the marker masks of a board."""
    occ, n, e, s, w = board.occ, board.n, board.e, board.s, board.w
    off = (n & ROW0) | (s & ROW4) | (e & COL4) | (w & COL0)
    # A side disagrees with a touching tile: compare each side with the neighbour's facing side,
    # where both tiles exist.
    mis = ((n ^ (s << 5)) & (occ << 5)) | ((s ^ (n >> 5)) & (occ >> 5))
    mis |= ((e ^ (w >> 1)) & (occ >> 1) & NOT_COL4) | ((w ^ (e << 1)) & (occ << 1) & NOT_COL0)
    mis &= occ
    empty = FULL & ~occ
    opened = (n & (empty << 5)) | (s & (empty >> 5))
    opened |= (e & (empty >> 1) & NOT_COL4) | (w & (empty << 1) & NOT_COL0)
    return Markers(board.wrong, off, mis, opened & occ)


class Sides(NamedTuple):
    """One mask per side of the placed tiles (bit i = space i): in `n`, the tiles whose north
    side is meant, and so on."""

    n: int
    e: int
    s: int
    w: int

    @property
    def tiles(self) -> int:
        """The tiles with any side meant."""
        return self.n | self.e | self.s | self.w

    def at(self, space: int) -> int:
        """The sides meant at `space`, as a tile's side mask (N=1, E=2, S=4, W=8)."""
        return (
            (self.n >> space & 1)
            | (self.e >> space & 1) << 1
            | (self.s >> space & 1) << 2
            | (self.w >> space & 1) << 3
        )


class SideMarkers(NamedTuple):
    """Which side of each placed tile is wrong or open, by reason (the sides of `markers`)."""

    off_board: Sides  # a path pointing past the edge
    mismatch: Sides  # disagrees with the touching tile: path against blank, either way round
    open_path: Sides  # a path pointing at an empty space

    @property
    def wrong(self) -> Sides:
        """The sides that make their tile illegal (off the board or a mismatch)."""
        off, mis = self.off_board, self.mismatch
        return Sides(off.n | mis.n, off.e | mis.e, off.s | mis.s, off.w | mis.w)


def side_markers(board: Board) -> SideMarkers:
    """Return, side by side, what `markers` says of each placed tile, so a drawing can show
    on which side a connection is broken or open. A side is at most one of the three: off the
    board it has no neighbour, and a touching tile's space is not empty."""
    occ, n, e, s, w = board.occ, board.n, board.e, board.s, board.w
    off = Sides(n & ROW0, e & COL4, s & ROW4, w & COL0)
    # Both tiles of a disagreement get it, each on its own facing side.
    mis = Sides(
        (n ^ (s << 5)) & (occ << 5) & occ,
        (e ^ (w >> 1)) & (occ >> 1) & NOT_COL4 & occ,
        (s ^ (n >> 5)) & (occ >> 5) & occ,
        (w ^ (e << 1)) & (occ << 1) & NOT_COL0 & occ,
    )
    empty = FULL & ~occ
    opened = Sides(
        n & (empty << 5),
        e & (empty >> 1) & NOT_COL4,
        s & (empty >> 5),
        w & (empty << 1) & NOT_COL0,
    )
    return SideMarkers(off, mis, opened)


def illegal_mask(board: Board) -> int:
    """Return the mask of placed tiles that are illegal (block finishing)."""
    return markers(board).illegal


def can_finish(board: Board) -> bool:
    return illegal_mask(board) == 0


class SpaceStatus(NamedTuple):
    status: str  # "ok" | "warning" | "illegal"
    reasons: tuple[str, ...]  # of "wrong_colour", "off_board", "mismatch", "open_path"

    def to_json(self) -> dict:
        return {"status": self.status, "reasons": list(self.reasons)}


def diagnose(board: Board) -> tuple[SpaceStatus | None, ...]:
    """Return, per space, None when empty or the status of the placed tile with its reasons.

    Illegal beats warning; an illegal tile also lists "open_path" if it has one.
    """
    m = markers(board)
    illegal = m.illegal
    out: list[SpaceStatus | None] = [None] * 25
    occ = board.occ
    while occ:
        bit = occ & -occ
        occ ^= bit
        reasons = tuple(
            name
            for name, mask in (
                (WRONG_COLOUR, m.wrong_colour),
                (OFF_BOARD, m.off_board),
                (MISMATCH, m.mismatch),
                (OPEN_PATH, m.open_path),
            )
            if mask & bit
        )
        if illegal & bit:
            status = ILLEGAL
        elif m.open_path & bit:
            status = WARNING
        else:
            status = OK
        out[bit.bit_length() - 1] = SpaceStatus(status, reasons)
    return tuple(out)


# --- structures --------------------------------------------------------------------------------


class Structure(NamedTuple):
    mask: int
    tiles: int
    value: int
    closed: bool

    @property
    def spaces(self) -> list[int]:
        return bits(self.mask)

    def to_json(self) -> dict:
        return {
            "spaces": self.spaces,
            "tiles": self.tiles,
            "value": self.value,
            "closed": self.closed,
        }


def structures(board: Board) -> list[Structure]:
    """Return every structure of the board, ordered by its lowest space."""
    occ, n, e, s, w = board.occ, board.n, board.e, board.s, board.w
    nm = n & (s << 5)
    sm = s & (n >> 5)
    em = e & (w >> 1) & NOT_COL4
    wm = w & (e << 1) & NOT_COL0
    bad = (n ^ nm) | (s ^ sm) | (e ^ em) | (w ^ wm)
    out = []
    rest = occ
    while rest:
        c = rest & -rest
        while True:
            c2 = c | ((c & nm) >> 5) | ((c & sm) << 5) | ((c & em) << 1) | ((c & wm) >> 1)
            if c2 == c:
                break
            c = c2
        rest ^= c
        value = sum((side & c).bit_count() for side in (n, e, s, w))
        out.append(Structure(c, c.bit_count(), value, not (c & bad)))
    return out


# --- where a tray tile may go ------------------------------------------------------------------


def _edge_sides(space: int) -> int:
    r, c = divmod(space, 5)
    return (1 if r == 0 else 0) | (2 if c == 4 else 0) | (4 if r == 4 else 0) | (8 if c == 0 else 0)


EDGE_SIDES = tuple(_edge_sides(i) for i in range(25))


def neighbour_sides(board: Board, space: int) -> tuple[int, int]:
    """Return (present, required) side masks for a tile put at `space`.

    present: sides with a touching tile; required: sides where that tile has a facing path.
    """
    occ = board.occ
    r, c = divmod(space, 5)
    present = required = 0
    if r > 0 and occ >> (space - 5) & 1:
        present |= 1
        if board.s >> (space - 5) & 1:
            required |= 1
    if c < 4 and occ >> (space + 1) & 1:
        present |= 2
        if board.w >> (space + 1) & 1:
            required |= 2
    if r < 4 and occ >> (space + 5) & 1:
        present |= 4
        if board.n >> (space + 5) & 1:
            required |= 4
    if c > 0 and occ >> (space - 1) & 1:
        present |= 8
        if board.e >> (space - 1) & 1:
            required |= 8
    return present, required


def fits(board: Board, tile: int, space: int, rotation: int) -> bool:
    """Return whether placing `tile` at the empty `space` with `rotation` would be legal now."""
    if board.occ >> space & 1 or TILE_COLOUR[tile] is not board.colours[space]:
        return False
    paths = TILE_PATHS[tile][rotation]
    if paths & EDGE_SIDES[space]:
        return False
    present, required = neighbour_sides(board, space)
    return paths & present == required


def legal_spots(board: Board, tile: int) -> list[tuple[int, int]]:
    """Return the (space, rotation) pairs where `tile` could be placed legally right now.

    Legal: the space is empty and of the tile's colour, no path points off the board, and every
    touching tile agrees (path meets path, blank meets blank); a path toward an empty space is
    fine. One rotation per distinct orientation (the lowest number), by space then rotation.
    """
    colour = TILE_COLOUR[tile]
    table = TILE_PATHS[tile]
    rotations = DISTINCT_ROTATIONS[TILES[tile].kind]
    out = []
    occ = board.occ
    for space, space_colour in enumerate(board.colours):
        if space_colour is not colour or occ >> space & 1:
            continue
        edge = EDGE_SIDES[space]
        present, required = neighbour_sides(board, space)
        for r in rotations:
            p = table[r]
            if not p & edge and p & present == required:
                out.append((space, r))
    return out


def legal_moves(board: Board, space: int) -> list[int]:
    """Return the empty spaces where the tile on `space` could be moved legally, keeping its
    rotation (a move does not turn it), in space order."""
    cell = board.cells[space]
    if cell is None:
        return []
    rest = board.with_cells({space: None})
    return [
        other
        for other in range(25)
        if other != space and fits(rest, cell.tile, other, cell.rotation)
    ]


def open_ends(board: Board) -> int:
    """Return how many connections point at an empty space (each open path end counted)."""
    occ, n, e, s, w = board.occ, board.n, board.e, board.s, board.w
    empty = FULL & ~occ
    return (
        (n & (empty << 5)).bit_count()
        + (s & (empty >> 5)).bit_count()
        + (e & (empty >> 1) & NOT_COL4).bit_count()
        + (w & (empty << 1) & NOT_COL0).bit_count()
    )
