"""What a seat's tiles could make, asked the way the engine asks it: tiles packed by type (a kind
and a colour; tiles of one type are worth the same to everyone), the solver's bound of the best
chip they make (`Potential`, cheap, optimistic) and its proved or budgeted value (`exact_gain`,
remembered). The engine's search (engine.py), the review and hindsight use them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from .solver import ChipBound, best_arrangement, packed_tiles
from .tiles import COLOURS, KINDS, TILE_COUNT, TILE_VALUE

# --- tile types: a kind and a colour ------------------------------------------------------------

_KIND_OF_OFFSET = (0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 4)
#: TYPE_OF[tile id]: its kind and colour as one number, colour x 5 + kind (kinds in the order
#: end, straight, corner, tee, cross); tiles of one type are worth the same to everyone. A seat's
#: tiles are packed as the solver packs them: 3 bits per type, type t at bit 3t.
TYPE_OF: tuple[int, ...] = tuple((t // 12) * 5 + _KIND_OF_OFFSET[t % 12] for t in range(TILE_COUNT))
VALUE_OF_TYPE: tuple[int, ...] = tuple((1, 2, 2, 3, 4)[t % 5] for t in range(25))
_MASK15 = (1 << 15) - 1

assert all(TILE_VALUE[t] == VALUE_OF_TYPE[TYPE_OF[t]] for t in range(TILE_COUNT))
assert all(packed_tiles([t]) == 1 << (3 * TYPE_OF[t]) for t in range(TILE_COUNT))


def unpack(supply: int) -> list[tuple]:
    """The (kind, colour) pairs of a packed set of tiles, for the solver."""
    return [
        (KINDS[k % 5], COLOURS[k // 5]) for k in range(25) for _ in range(supply >> (3 * k) & 7)
    ]


def tile_count(supply: int) -> int:
    return sum(supply >> (3 * k) & 7 for k in range(25))


class Potential:
    """What a seat's tiles could make at best on its board, by the solver's bound (`ChipBound`),
    with each colour's table kept: the same question is asked thousands of times a search."""

    __slots__ = ("bound", "tables")

    def __init__(self, colours: Sequence) -> None:
        self.bound = ChipBound(colours)
        #: tables[c][packed]: the bound of colour c's tiles when every colour has tiles.
        self.tables: list[dict[int, int]] = [{} for _ in range(5)]

    def colour(self, c: int, packed: int) -> int:
        table = self.tables[c]
        found = table.get(packed)
        if found is None:
            found = table[packed] = self.bound.colour(c, packed)
        return found

    def gain(self, supply: int) -> int:
        """The bound of the best chip these tiles (packed) can make."""
        return self.bound.gain(supply)

    def delta(self, supply: int, kind_colour: int) -> int:
        """How much one more tile of this type raises the bound (every colour counted as
        having tiles: the end of the game is what counts)."""
        c = kind_colour // 5
        packed = supply >> (15 * c) & _MASK15
        return self.colour(c, packed + (1 << (3 * (kind_colour % 5)))) - self.colour(c, packed)


_EXACT: OrderedDict[tuple, int] = OrderedDict()
_EXACT_SIZE = 20_000


def exact_gain(colours: Sequence, supply: int, max_nodes: int | None) -> int:
    """The gain of the best chip these tiles (packed) make, by the solver within `max_nodes`
    (None: proved), remembered: the answer depends only on the question."""
    key = (tuple(colours), supply, max_nodes)
    found = _EXACT.get(key)
    if found is None:
        tiles = unpack(supply)
        result = best_arrangement(colours, tiles, max_nodes=max_nodes)
        found = result.score + 2 * len(tiles)
        _EXACT[key] = found
        if len(_EXACT) > _EXACT_SIZE:
            _EXACT.popitem(last=False)
    else:
        _EXACT.move_to_end(key)
    return found
