"""The best chip: the highest score a board's colours and a set of tiles can make, proved optimal.

The problem (docs/rules.md, "Best chip solver"): choose some of the tiles and put each on a space
of its colour with a rotation, so that the placed tiles form one closed structure; the score is
the chip's value minus 2 for every tile left out. Placing a tile outside the chip only costs, so an
optimal board holds exactly one closed structure (or nothing: every tile costs 2).

Score = sum over the chip's tiles of (value + 2) - 2 x (all tiles), so the search maximises the
*gain*, the sum of (value + 2) over the chip.

Method: a depth-first branch and bound over the 25 spaces in row-major order, with a memo (a
"plug" dynamic program over a broken row profile). Going space by space, the paths that cross from
the decided spaces into the undecided ones (the *plugs*: one per column pointing down, one
pointing right) fix the north and west sides of the next space; the search chooses its east and
south sides, which fixes the tile's kind (none, end, straight, corner, tee, cross) and rotation,
and takes one tile of that kind and the space's colour. A label per plug says which plugs are
already joined, so the search knows when a structure closes: one that closes while other plugs
remain would leave two structures and is cut; one that closes alone is a finished chip (the rest
of the board stays empty).

A state (space, plugs with their joins, tiles left per colour and kind, each count capped at the
spaces of that colour still to come) is memoised with its exact best future gain, or with an upper
bound of it when its search was cut. The bound, per colour, is the best matching of the tiles
left to the spaces left, each space allowed the sides that could meet a tile (not off the board,
not a decided neighbour without a plug, not a colour with no tiles left): a cross needs 4 such
sides, a tee 3, a straight 2 opposite ones, a corner 2 adjacent ones. A space with a plug into it
must get a tile. The total is floored to an even number (a closed structure's value is even).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .analysis import can_finish
from .analysis import score as score_board
from .board import Board, Placed
from .tiles import COLOURS, KIND_PATHS, KINDS, TILE_COLOUR, TILE_COUNT, TILES, Colour, Kind, Tile

# --- tables ------------------------------------------------------------------------------------

#: Kind and colour indices: end 0, straight 1, corner 2, tee 3, cross 4; colours as in COLOURS.
_KIND_INDEX = {kind: k for k, kind in enumerate(KINDS)}
_COLOUR_INDEX = {colour: c for c, colour in enumerate(COLOURS)}
#: _KIND_OF_MASK[paths] -> kind index (-1 for no paths); _ROTATION_OF_MASK: the lowest rotation.
_KIND_OF_MASK = [-1] * 16
_ROTATION_OF_MASK = [-1] * 16
for _kind in KINDS:
    for _r in range(3, -1, -1):
        _KIND_OF_MASK[KIND_PATHS[_kind][_r]] = _KIND_INDEX[_kind]
        _ROTATION_OF_MASK[KIND_PATHS[_kind][_r]] = _r
_VALUE_OF_KIND = (1, 2, 2, 3, 4)

# The tiles left are one integer: 3 bits per (colour, kind) count, 15 bits per colour.
_COLOUR_BITS = 15
_COLOUR_MASK = (1 << _COLOUR_BITS) - 1


def _shift(colour: int, kind: int) -> int:
    return colour * _COLOUR_BITS + kind * 3


def _unpack(packed: int) -> list[int]:
    """Return the five kind counts of one colour's 15 bits."""
    return [(packed >> (3 * k)) & 7 for k in range(5)]


def _colour_bound(spaces: tuple[int, int, int, int, int], packed: int) -> int:
    """Return the best sum of (value + 2) of one colour's tiles matched to its spaces.

    `spaces` counts the spaces by the sides they could use: (4 sides, 3 sides, 2 opposite
    sides, 2 adjacent sides, 1 side). A cross fits the first kind; a tee the first two; a
    straight those or opposite sides; a corner those or adjacent sides; an end any. The sets of
    tiles that fit form a transversal matroid, so taking the tiles by worth (cross 6, tee 5,
    straight and corner 4, end 3), each while the set still fits, gives an optimal matching.
    """
    a4, a3, s2, c2, a1 = spaces
    ends, straights, corners, tees, crosses = _unpack(packed)
    x = min(crosses, a4)
    t = min(tees, a4 + a3 - x)
    big = a4 + a3 - x - t
    s1 = min(straights, s2)
    c1 = min(corners, c2)
    two = s1 + c1 + min(straights - s1 + corners - c1, big)
    e = min(ends, a4 + a3 + s2 + c2 + a1 - x - t - two)
    return 6 * x + 5 * t + 4 * two + 3 * e


# --- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BestResult:
    """The best arrangement found.

    `score` is the board's score with the unused tiles in the tray (`analysis.score(board,
    len(tray))`); `optimal` is True when the search proved that no arrangement scores more;
    `seconds` the time taken; `nodes` the search states visited.
    """

    score: int
    board: Board
    tiles_used: tuple[int, ...]
    optimal: bool
    seconds: float
    nodes: int
    tiles: tuple[int, ...] = field(default=(), repr=False)

    @property
    def tray(self) -> tuple[int, ...]:
        """The tiles left off the board, in the order they were given."""
        used = set(self.tiles_used)
        return tuple(t for t in self.tiles if t not in used)

    @property
    def chip_value(self) -> int:
        return self.score + 2 * (len(self.tiles) - len(self.tiles_used))


TileSpec = int | Tile | tuple[Kind | str, Colour | str]


def resolve_tiles(tiles: Iterable[TileSpec]) -> tuple[int, ...]:
    """Return tile ids for tiles given as ids, `Tile`s or (kind, colour) pairs.

    A (kind, colour) pair takes the lowest free id of that kind and colour. Raise ValueError for
    an unknown id, kind or colour, a repeated id, or more tiles of a kind and colour than the
    game has.
    """
    ids: list[int] = []
    pairs: list[tuple[Kind, Colour]] = []
    for spec in tiles:
        if isinstance(spec, Tile):
            ids.append(spec.id)
        elif isinstance(spec, int) and not isinstance(spec, bool):
            if not 0 <= spec < TILE_COUNT:
                raise ValueError(f"there is no tile {spec}: tiles are 0 to {TILE_COUNT - 1}")
            ids.append(spec)
        elif isinstance(spec, tuple | list) and len(spec) == 2:
            pairs.append((Kind(spec[0]), Colour(spec[1])))
        else:
            raise ValueError(f"not a tile: {spec!r}")
    if len(set(ids)) != len(ids):
        raise ValueError("a tile id is given twice")
    taken = set(ids)
    for kind, colour in pairs:
        free = [t.id for t in TILES if t.kind == kind and t.colour == colour and t.id not in taken]
        if not free:
            raise ValueError(f"the game has no more {colour.value} {kind.value} tiles")
        taken.add(free[0])
        ids.append(free[0])
    return tuple(ids)


# --- plugs and their joins ---------------------------------------------------------------------
#
# A *front* is 6 labels: front[0..4] the plug pointing down into each column's next space
# (0: none), front[5] the plug pointing right into the next space; equal labels are joined.
# Fronts are normalised (labels numbered by first appearance) and numbered: a front id.

_CONTINUE, _CLOSED, _INVALID = 0, 1, 2
_FRONTS: list[tuple[int, ...]] = [(0, 0, 0, 0, 0, 0)]
_FRONT_IDS: dict[tuple[int, ...], int] = {_FRONTS[0]: 0}
#: _PLUGS[front id]: bit k set when front[k] is a plug.
_PLUGS: list[int] = [0]
#: (front id << 5 | col << 2 | east << 1 | south) -> (new front id, status)
_TRANSITIONS: dict[int, tuple[int, int]] = {}
_LOCK = threading.Lock()  # new fronts are numbered one at a time


def _front_id(front: Sequence[int]) -> int:
    relabel: dict[int, int] = {}
    out = []
    for label in front:
        if label:
            if label not in relabel:
                relabel[label] = len(relabel) + 1
            out.append(relabel[label])
        else:
            out.append(0)
    key = tuple(out)
    fid = _FRONT_IDS.get(key)
    if fid is None:
        with _LOCK:
            fid = _FRONT_IDS.get(key)
            if fid is None:
                _FRONTS.append(key)
                _PLUGS.append(sum(1 << k for k, label in enumerate(key) if label))
                fid = _FRONT_IDS[key] = len(_FRONTS) - 1
    return fid


def _transition(fid: int, col: int, e: int, s: int) -> tuple[int, int]:
    """Return (new front id, status) after the space in column `col` takes paths east (e) and
    south (s); its north and west paths are the plugs into it. Status: the structure goes on,
    it closed alone (a finished chip), or it closed while other plugs remain (invalid)."""
    code = fid << 5 | col << 2 | (1 if e else 0) << 1 | (1 if s else 0)
    found = _TRANSITIONS.get(code)
    if found is not None:
        return found
    front = _FRONTS[fid]
    n, w = front[col], front[5]
    f = list(front)
    if not n and not w:
        if not e and not s:
            result = (fid, _CONTINUE)
        else:
            label = max(front) + 1
            f[col] = label if s else 0
            f[5] = label if e else 0
            result = (_front_id(f), _CONTINUE)
    else:
        label = n or w
        if n and w and n != w:
            f = [n if x == w else x for x in f]
        f[col] = label if s else 0
        f[5] = label if e else 0
        if not e and not s and label not in f:
            result = (0, _INVALID) if any(f) else (0, _CLOSED)
        else:
            result = (_front_id(f), _CONTINUE)
    _TRANSITIONS[code] = result
    return result


class _Timeout(Exception):
    pass


class _Budget(Exception):
    pass


# --- a Lagrangian bound -----------------------------------------------------------------------


class _Lagrangian:
    """A second bound that knows the structure must be one: a price per (colour, kind) tile.

    Drop the limit on how many tiles of each colour and kind may be used (keeping only which
    kinds exist), and charge each tile used its price instead. Then the best future gain from a
    state (space i, plugs with their joins) is a small dynamic program over the same states as
    the search, without the tile counts: L(i, front). For any prices >= 0 and any completion
    that respects the tiles left, gain <= L(i, front) + sum of price x tiles left, so that sum is
    an upper bound. The prices are chosen by a subgradient descent on the bound at the root.
    """

    def __init__(self, solver: _Solver) -> None:
        colour_of = solver.colour_of
        supply = solver.supply
        self.counts = [
            min(supply >> _shift(c, k) & 7, solver.remaining[0][c])
            for c in range(5)
            for k in range(5)
        ]
        # The states reachable from the empty board, per space, and their choices:
        # (price index or -1, gain, next front id or -1 when the chip closes, mask).
        self.states: list[dict[int, list[tuple[int, int, int, int]]]] = []
        frontier = {0}
        deadline = solver.deadline
        for i in range(25):
            if deadline is not None and time.perf_counter() > deadline:
                raise _Timeout
            col = i % 5
            here: dict[int, list[tuple[int, int, int, int]]] = {}
            nxt = set()
            for fid in frontier:
                plugs = _PLUGS[fid]
                choices = []
                for code, mask, gain, shift in solver.options[i][plugs >> col & 1][plugs >> 5 & 1]:
                    index = -1
                    if shift >= 0:
                        index = colour_of[i] * 5 + _KIND_OF_MASK[mask]
                        if not self.counts[index]:
                            continue
                    new_fid, status = _transition(fid, col, code & 2, code & 1)
                    if status == _INVALID:
                        continue
                    if status == _CLOSED:
                        choices.append((index, gain, -1, mask))
                    else:
                        choices.append((index, gain, new_fid, mask))
                        nxt.add(new_fid)
                here[fid] = choices
            self.states.append(here)
            frontier = nxt
        self.prices = [0.0] * 25
        self.values: list[dict[int, float]] = []
        #: The best placements the relaxation found that respect the tile counts, and their gain.
        self.found: tuple[int, list[tuple[int, int]]] = (0, [])

    def evaluate(self, prices: list[float]) -> tuple[float, list[int], list[tuple[int, int]]]:
        """Return (the root bound, tiles used per (colour, kind), placements) at these prices."""
        neg = -1.0e9
        values: list[dict[int, float]] = [{} for _ in range(26)]
        values[25][0] = 0.0
        picks: list[dict[int, tuple[int, int, int, int] | None]] = [{} for _ in range(25)]
        for i in range(24, -1, -1):
            later = values[i + 1]
            here = values[i]
            pick = picks[i]
            for fid, choices in self.states[i].items():
                best = 0.0 if not _PLUGS[fid] else neg
                chosen = None
                for index, gain, new_fid, mask in choices:
                    value = gain - prices[index] if index >= 0 else 0.0
                    if new_fid >= 0:
                        value += later.get(new_fid, neg)
                    if value > best:
                        best, chosen = value, (index, gain, new_fid, mask)
                here[fid] = best
                pick[fid] = chosen
        used = [0] * 25
        placements = []
        fid = 0
        for i in range(25):
            chosen = picks[i].get(fid)
            if chosen is None:
                break
            index, _, new_fid, mask = chosen
            if index >= 0:
                used[index] += 1
                placements.append((i, mask))
            if new_fid < 0:
                break
            fid = new_fid
        self.values = values
        return (
            values[0][0] + sum(p * n for p, n in zip(prices, self.counts, strict=True)),
            used,
            placements,
        )

    def fit(self, incumbent: int, deadline: float | None, rounds: int = 40) -> float:
        """Choose prices that make the root bound small; return the best root bound found.

        Stops early once the bound cannot beat `incumbent`, or at the deadline (_Timeout)."""
        prices = [0.0] * 25
        best_bound, best_prices, best_values = float("inf"), prices, self.values
        step = 1.0
        stale = 0
        for _ in range(rounds):
            if deadline is not None and time.perf_counter() > deadline:
                raise _Timeout
            bound, used, placements = self.evaluate(prices)
            if all(u <= n for u, n in zip(used, self.counts, strict=True)):
                gain = sum(_VALUE_OF_KIND[_KIND_OF_MASK[mask]] + 2 for _, mask in placements)
                if gain > self.found[0]:
                    self.found = (gain, placements)
            if bound < best_bound - 1e-9:
                best_bound, best_prices, best_values = bound, prices, self.values
                stale = 0
            else:
                stale += 1
                if stale >= 4:
                    step /= 2
                    stale = 0
            if (int(bound + 1e-6) & ~1) <= incumbent:
                break
            grad = [n - u for n, u in zip(self.counts, used, strict=True)]
            norm = sum(g * g for g in grad)
            if not norm:
                break
            t = step * (bound - incumbent) / norm
            prices = [max(0.0, p - t * g) for p, g in zip(prices, grad, strict=True)]
        self.prices = best_prices
        self.values = best_values
        return best_bound


# --- the search --------------------------------------------------------------------------------


class _Solver:
    """One search: colours as indices, tiles as the packed counts integer."""

    def __init__(
        self,
        colour_of: Sequence[int],
        supply: int,
        deadline: float | None,
        max_nodes: int | None = None,
    ) -> None:
        self.colour_of = colour_of = list(colour_of)
        self.supply = supply
        self.deadline = deadline
        #: The search stops after this many nodes (a budget that does not depend on the clock).
        self.max_nodes = max_nodes if max_nodes is not None else 1 << 62
        self.nodes = 0
        self.memo: dict[int, tuple[int, bool, int]] = {}
        #: remaining[i][c]: spaces of colour c at i or later.
        self.remaining = [[sum(1 for j in range(i, 25) if colour_of[j] == c) for c in range(5)]
                          for i in range(26)]  # fmt: skip
        # (i, plugs, supply) -> (bound, capped supply, the capped supply's price)
        self.state_cache: dict[int, tuple[int, int, float]] = {}
        self.colour_cache: dict[tuple[int, int, int, int, int], int] = {}
        self.caps_cache: dict[tuple[int, int, int, int], tuple[int, int, int, int, int]] = {}
        # _options[i][n][w]: (code, mask, gain, shift) per choice of east and south sides, most
        # paths first; shift -1 for leaving the space empty.
        self.options = []
        for i in range(25):
            r, col = divmod(i, 5)
            per_n = []
            for n in (0, 1):
                per_w = []
                for w in (0, 8) if col else (0,):
                    opts = []
                    for e in (2, 0) if col < 4 else (0,):
                        for s in (4, 0) if r < 4 else (0,):
                            mask = n | e | s | w
                            code = col << 2 | (1 if e else 0) << 1 | (1 if s else 0)
                            if mask and colour_of[i] < 5:  # 5: a blocked space
                                kind = _KIND_OF_MASK[mask]
                                shift = _shift(colour_of[i], kind)
                                opts.append((code, mask, _VALUE_OF_KIND[kind] + 2, shift))
                    opts.sort(key=lambda o: -o[1].bit_count())
                    if not n and not w:
                        opts.append((col << 2, 0, 0, -1))
                    per_w.append(tuple(opts))
                per_n.append(per_w)
            self.options.append(per_n)
        # The colour of the space a south / east plug from space i points into.
        self.below = [colour_of[i + 5] * _COLOUR_BITS if i < 20 else 0 for i in range(25)]
        self.right = [colour_of[i + 1] * _COLOUR_BITS if i % 5 < 4 else 0 for i in range(25)]
        self.best = 0
        self.best_path: list[tuple[int, int]] = []
        self.path: list[tuple[int, int]] = []
        #: Nodes searched with the cheap bound before the Lagrangian bound is set up.
        self.node_limit: int | None = None
        self.lag: _Lagrangian | None = None
        self.lag_values: list[dict[int, float]] | None = None
        self.prices: list[float] = []

    # --- bounds --------------------------------------------------------------------------------

    def caps(self, i: int, plugs: int, avail: int, c: int) -> tuple[int, int, int, int, int]:
        """Return how many spaces of colour c at i or later could have paths on 4 sides, on 3,
        on 2 opposite ones, on 2 adjacent ones, on 1, given the plugs and the colours that
        still have tiles (a path must meet a tile)."""
        key = (i, plugs, avail, c)
        found = self.caps_cache.get(key)
        if found is not None:
            return found
        colour_of = self.colour_of
        counts = [0, 0, 0, 0, 0]
        for j in range(i, 25):
            if colour_of[j] != c:
                continue
            r, col = divmod(j, 5)
            sides = 0
            if r:
                if j - 5 < i:
                    sides |= plugs >> col & 1
                else:
                    sides |= avail >> colour_of[j - 5] & 1
            if col:
                if j == i:
                    sides |= (plugs >> 5 & 1) << 3
                else:
                    sides |= (avail >> colour_of[j - 1] & 1) << 3
            if col < 4:
                sides |= (avail >> colour_of[j + 1] & 1) << 1
            if r < 4:
                sides |= (avail >> colour_of[j + 5] & 1) << 2
            n = sides.bit_count()
            if n == 4:
                counts[0] += 1
            elif n == 3:
                counts[1] += 1
            elif n == 2:
                counts[2 if sides in (5, 10) else 3] += 1
            elif n == 1:
                counts[4] += 1
        found = self.caps_cache[key] = (counts[0], counts[1], counts[2], counts[3], counts[4])
        return found

    def colour_bound(self, i: int, plugs: int, avail: int, c: int, packed: int) -> int:
        """Return the bound of what colour c's tiles can add from space i on (-1000 if the
        spaces with a plug into them need more tiles of colour c than are left)."""
        key = (i, plugs, avail, c, packed)
        found = self.colour_cache.get(key)
        if found is not None:
            return found
        must = 0
        colour_of = self.colour_of
        for k in range(5):
            if plugs >> k & 1:
                j = i + ((k - i) % 5)
                if j < 25 and colour_of[j] == c:
                    must += 1
        if plugs >> 5 & 1 and colour_of[i] == c and not plugs >> (i % 5) & 1:
            must += 1
        if must > sum(_unpack(packed)):
            found = -1000
        elif not packed:
            found = 0
        else:
            found = _colour_bound(self.caps(i, plugs, avail, c), packed)
        self.colour_cache[key] = found
        return found

    def state_info(self, i: int, plugs: int, supply: int) -> tuple[int, int, float]:
        """Return (bound of the future gain, supply capped for the memo key, the Lagrangian
        price of the capped supply) for a state."""
        key = supply << 11 | plugs << 5 | i
        found = self.state_cache.get(key)
        if found is not None:
            return found
        avail = 0
        for c in range(5):
            if supply >> (c * _COLOUR_BITS) & _COLOUR_MASK:
                avail |= 1 << c
        total = 0
        capped = 0
        term = 0.0
        remaining = self.remaining[i]
        prices = self.prices
        for c in range(5):
            packed = supply >> (c * _COLOUR_BITS) & _COLOUR_MASK
            total += self.colour_bound(i, plugs, avail, c, packed)
            room = remaining[c]
            for k in range(5):
                n = min((packed >> (3 * k)) & 7, room)
                capped |= n << _shift(c, k)
                if prices and n:
                    term += prices[c * 5 + k] * n
        found = self.state_cache[key] = (max(total, -1000), capped, term)
        return found

    # --- search --------------------------------------------------------------------------------

    def solve(self, node_limit: int | None = 20_000) -> bool:
        """Search; return True when the optimum was proved (False when the deadline hit).

        The search starts with the cheap bound; after `node_limit` nodes it sets up the
        Lagrangian bound (which may prove the incumbent optimal at once) and searches again from
        the start with both bounds, keeping its memo and incumbent."""
        self.node_limit = node_limit
        try:
            if node_limit is not None:
                try:
                    self.search(0, 0, self.supply, 0)
                    return True
                except _Budget:
                    self.path = []
                    self.node_limit = None
                self.use_lagrangian()
                if self.lag_bound & ~1 <= self.best:
                    return True
            self.search(0, 0, self.supply, 0)
        except _Timeout:
            return False
        return True

    def use_lagrangian(self) -> None:
        lag = self.lag = _Lagrangian(self)
        self.lag_bound = int(lag.fit(self.best, self.deadline) + 1e-6)
        gain, placements = lag.found
        if gain > self.best:
            self.best, self.best_path = gain, placements
        self.lag_values = lag.values
        self.prices = lag.prices
        self.state_cache.clear()

    def search(self, i: int, fid: int, supply: int, acc: int) -> int:
        """Return 2 x the best future gain from space i on, + 1 when exact; or 2 x an upper
        bound of it when that cannot beat the incumbent. `acc` is the gain so far."""
        self.nodes += 1
        if not self.nodes & 127:
            if self.nodes > self.max_nodes:
                raise _Timeout
            if not self.nodes & 1023:
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    raise _Timeout
                if self.node_limit is not None and self.nodes > self.node_limit:
                    raise _Budget
        if i == 25:
            return 1
        plugs = _PLUGS[fid]
        bound, capped, term = self.state_info(i, plugs, supply)
        if self.lag_values is not None:
            lag = int(self.lag_values[i].get(fid, 1000.0) + term + 1e-6)
            if lag < bound:
                bound = lag
        if (acc + bound) & ~1 <= self.best:
            return bound << 1
        key = capped << 17 | fid << 5 | i
        entry = self.memo.get(key)
        if entry is not None:
            value, exact, _ = entry
            if exact:
                if acc + value > self.best:
                    self.best = acc + value
                    self.best_path = self.path + self.tail(i, fid, supply)
                return value << 1 | 1
            if (acc + value) & ~1 <= self.best:
                return value << 1
        col = i % 5
        best = 0 if not plugs else -1000
        best_code = -1
        fail = -1000
        path = self.path
        below, right = self.below[i], self.right[i]
        transitions = _TRANSITIONS
        for code, mask, gain, shift in self.options[i][plugs >> col & 1][plugs >> 5 & 1]:
            if shift >= 0:
                if not supply >> shift & 7:
                    continue
                new_supply = supply - (1 << shift)
                # A plug needs a tile of its space's colour.
                if mask & 4 and not new_supply >> below & _COLOUR_MASK:
                    continue
                if mask & 2 and not new_supply >> right & _COLOUR_MASK:
                    continue
            else:
                new_supply = supply
            found = transitions.get(fid << 5 | code)
            if found is None:
                found = _transition(fid, col, code & 2, code & 1)
            new_fid, status = found
            if status:
                if status == _CLOSED:
                    if acc + gain > self.best:
                        self.best = acc + gain
                        self.best_path = [*path, (i, mask)]
                    if gain > best:
                        best, best_code = gain, code
                continue
            if gain:
                path.append((i, mask))
                sub = self.search(i + 1, new_fid, new_supply, acc + gain)
                path.pop()
            else:
                sub = self.search(i + 1, new_fid, new_supply, acc)
            value = gain + (sub >> 1)
            if sub & 1:
                if value > best:
                    best, best_code = value, code
            elif value > fail:
                fail = value
        if best >= fail:
            self.memo[key] = (best, True, best_code)
            return best << 1 | 1
        self.memo[key] = (fail, False, -1)
        return fail << 1

    def tail(self, i: int, fid: int, supply: int) -> list[tuple[int, int]]:
        """Return the placements of the memo's best completion from an exact state."""
        out: list[tuple[int, int]] = []
        while i < 25:
            plugs = _PLUGS[fid]
            capped = self.state_info(i, plugs, supply)[1]
            _, exact, code = self.memo[capped << 17 | fid << 5 | i]
            if not exact:  # pragma: no cover - only exact states are followed
                raise AssertionError("no exact memo entry to follow")
            if code < 0:
                return out  # nothing more is placed
            col = i % 5
            mask = (plugs >> col & 1) | (code & 2) | (code & 1) << 2 | (plugs >> 5 & 1) << 3
            fid, status = _transition(fid, col, code & 2, code & 1)
            if mask:
                supply -= 1 << _shift(self.colour_of[i], _KIND_OF_MASK[mask])
                out.append((i, mask))
            if status == _CLOSED:
                return out
            i += 1
        return out


# --- the public functions ----------------------------------------------------------------------


def _supply_of(ids: Iterable[int]) -> int:
    supply = 0
    for t in ids:
        supply += 1 << _shift(_COLOUR_INDEX[TILE_COLOUR[t]], _KIND_INDEX[TILES[t].kind])
    return supply


def best_arrangement(
    colours: Sequence[Colour | str],
    tiles: Iterable[TileSpec],
    *,
    time_limit: float | None = None,
    start_from: BestResult | None = None,
    max_nodes: int | None = None,
    blocked: Iterable[int] = (),
) -> BestResult:
    """Return the best arrangement of `tiles` on a board with these 25 space colours.

    The board holds one closed structure (or nothing) and every tile left off it counts as in
    the tray: `result.score == analysis.score(result.board, len(result.tray)).score` and
    `can_finish(result.board)`. Without `time_limit` the search runs to the end and `optimal` is
    True: no arrangement scores more. With a time limit (seconds) it stops when the time is up
    and returns the best board found so far, `optimal` False unless it finished in time.

    `max_nodes` stops the search after about that many search nodes (checked every 128), like
    a time limit but the same on every machine: the result depends only on the arguments (the
    engine's budgets, engine.py). The Lagrangian bound is set up after 20,000 nodes; its setup
    counts as no nodes.

    `blocked` spaces must stay empty (the puzzles ask whether a best board can do without a
    space).

    `start_from`, an earlier result on the same colours whose tiles are all among `tiles`, gives
    the search a first arrangement to beat (it only speeds the search up).
    """
    start = time.perf_counter()
    spaces = tuple(Colour(c) for c in colours)
    if len(spaces) != 25:
        raise ValueError("a board has 25 spaces")
    ids = resolve_tiles(tiles)
    deadline = None if time_limit is None else start + max(0.0, time_limit)
    # A blocked space gets colour 5, which no tile has: nothing can be placed there.
    blocked = frozenset(blocked)
    colour_of = [5 if i in blocked else _COLOUR_INDEX[c] for i, c in enumerate(spaces)]
    solver = _Solver(colour_of, _supply_of(ids), deadline, max_nodes)
    if start_from is not None and start_from.tiles_used:
        if (
            start_from.board.colours != spaces
            or not set(start_from.tiles_used) <= set(ids)
            or any(start_from.board.cells[i] is not None for i in blocked)
        ):
            raise ValueError("start_from must be a result on these colours with these tiles")
        solver.best = start_from.chip_value + 2 * len(start_from.tiles_used)
        solver.best_path = [(i, c.paths) for i, c in start_from.board.placed()]
    optimal = solver.solve()
    board, used = _build(spaces, ids, solver.best_path)
    result = score_board(board, len(ids) - len(used))
    if result.score != solver.best - 2 * len(ids) or not can_finish(board):  # pragma: no cover
        raise AssertionError("the solver's board does not score what the solver claims")
    return BestResult(
        score=result.score,
        board=board,
        tiles_used=tuple(used),
        optimal=optimal,
        seconds=time.perf_counter() - start,
        nodes=solver.nodes,
        tiles=ids,
    )


def _build(
    colours: Sequence[Colour], ids: Sequence[int], path: Iterable[tuple[int, int]]
) -> tuple[Board, list[int]]:
    """Return the board of the placements (space, paths), taking tiles from `ids` in order."""
    free: dict[tuple[Colour, int], list[int]] = {}
    for t in reversed(ids):
        free.setdefault((TILE_COLOUR[t], _KIND_INDEX[TILES[t].kind]), []).append(t)
    cells: list[Placed | None] = [None] * 25
    used = []
    for space, mask in sorted(path):
        tile = free[(colours[space], _KIND_OF_MASK[mask])].pop()
        cells[space] = Placed(tile, _ROTATION_OF_MASK[mask])
        used.append(tile)
    return Board(colours, cells), used


def best_score(
    colours: Sequence[Colour | str], tiles: Iterable[TileSpec], time_limit: float | None = None
) -> int:
    """Return the best score of these tiles on this board (proved without a time limit)."""
    return best_arrangement(colours, tiles, time_limit=time_limit).score


def draft_values(
    colours: Sequence[Colour | str],
    owned_tiles: Iterable[TileSpec],
    candidate_tiles: Iterable[TileSpec],
    time_limit: float | None = 1.0,
) -> dict[int, int]:
    """Return, for each candidate tile id, how much it adds to the best score the owned tiles can
    make on this board: best(owned + candidate) - best(owned). Always at least -2 (the tile can
    stay in the tray).

    The time limit (seconds, None for none) is shared by the searches: one for the owned tiles
    and one per distinct kind and colour among the candidates (equal tiles get equal values).
    Under a tight limit the values come from the best boards found, not proved optima.
    """
    start = time.perf_counter()
    colours = tuple(Colour(c) for c in colours)
    owned = resolve_tiles(owned_tiles)
    candidates = resolve_tiles(candidate_tiles)
    if set(owned) & set(candidates):
        raise ValueError("a candidate tile is already owned")
    groups: dict[tuple[Kind, Colour], list[int]] = {}
    for t in candidates:
        groups.setdefault((TILES[t].kind, TILES[t].colour), []).append(t)

    def share(left: int) -> float | None:
        if time_limit is None:
            return None
        remaining = time_limit - (time.perf_counter() - start)
        return max(0.0, remaining / left)

    base = best_arrangement(colours, owned, time_limit=share(len(groups) + 1))
    values: dict[int, int] = {}
    for n, (_, same) in enumerate(groups.items()):
        with_it = best_arrangement(
            colours, (*owned, same[0]), time_limit=share(len(groups) - n), start_from=base
        )
        for t in same:
            values[t] = with_it.score - base.score
    return {t: values[t] for t in candidates}


class ChipBound:
    """The search's per-colour bound at the empty board, for any tiles on this board: an upper
    bound of the best chip's gain (the sum of value + 2 over the chip) that costs a few
    dictionary look-ups. The engine (engine.py) uses it to judge the tiles a seat may end with:
    on the tile sets of finished games it is 3 above the proved optimum on average.

    Tiles are given packed as the search packs them (`packed_tiles`): 3 bits per kind and
    colour, kind-major within each colour's 15 bits.
    """

    __slots__ = ("_solver", "_tables")

    def __init__(self, colours: Sequence[Colour | str]) -> None:
        colour_of = [_COLOUR_INDEX[Colour(c)] for c in colours]
        if len(colour_of) != 25:
            raise ValueError("a board has 25 spaces")
        self._solver = _Solver(colour_of, 0, None)
        self._tables: list[dict[int, int]] = [{} for _ in range(5)]

    def colour(self, c: int, packed: int, avail: int = 31) -> int:
        """The bound of colour `c`'s tiles (`packed`: its 15 bits) when the colours in `avail`
        (a bit per colour) have tiles: by default every colour, as at the end of a game."""
        key = avail << _COLOUR_BITS | packed
        table = self._tables[c]
        found = table.get(key)
        if found is None:
            found = table[key] = (
                _colour_bound(self._solver.caps(0, 0, avail, c), packed) if packed else 0
            )
        return found

    def gain(self, packed: int) -> int:
        """The bound of the best chip's gain these tiles can make, floored to an even number."""
        avail = 0
        for c in range(5):
            if packed >> (c * _COLOUR_BITS) & _COLOUR_MASK:
                avail |= 1 << c
        total = 0
        for c in range(5):
            total += self.colour(c, packed >> (c * _COLOUR_BITS) & _COLOUR_MASK, avail)
        return total & ~1


def packed_tiles(tiles: Iterable[int]) -> int:
    """The tiles (ids) packed as the search packs them: 3 bits per kind and colour."""
    return _supply_of(tiles)


def tile_shift(tile: int) -> int:
    """The bit offset of a tile's kind and colour in `packed_tiles`: add `1 << shift` to add
    one."""
    return _shift(_COLOUR_INDEX[TILE_COLOUR[tile]], _KIND_INDEX[TILES[tile].kind])
