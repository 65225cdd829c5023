"""The schedule of a round-robin section: every table of every round, all created at once.

At 2-player tables, the circle method (Berger tables): everyone meets everyone once in n - 1
rounds (n rounds when n is odd, each player sitting one out). At tables of 3 to 5, a schedule
in which every pair meets as evenly as possible. Perfect designs, where every pair meets exactly
once, where they exist and are known here: the affine plane of order k for k*k players at tables
of k (k + 1 rounds), and Kirkman's fifteen schoolgirls (15 at tables of 3, 7 rounds). Otherwise
a greedy start improved by simulated annealing from a seeded generator, which stops as soon as
it reaches the best evenness there can be. Schedules are worked out for positions 0..n-1 and
cached, so sections of one size share one search.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from .formats import MAX_TABLE, MIN_TABLE, FormatError, table_sizes
from .meetings import pair_key

SEARCH_STEPS = 60_000  # annealing steps at most, for one schedule
STALE_STEPS = 20_000  # and it stops when this many have not improved on the best
HEAT = 3.0


@dataclass(frozen=True)
class Schedule:
    """The rounds of a section (each round its tables, each table player ids) and, at 2-player
    tables with an odd count, who sits out each round."""

    rounds: tuple[tuple[tuple[int, ...], ...], ...]
    sitting_out: tuple[tuple[int, ...], ...]
    players: tuple[int, ...]

    @property
    def tables(self) -> tuple[tuple[int, ...], ...]:
        return tuple(table for tables in self.rounds for table in tables)

    def pair_meetings(self) -> Counter[tuple[int, int]]:
        """How often each pair of the section meets (every pair listed, 0 if never)."""
        counts: Counter[tuple[int, int]] = Counter(
            {pair_key(a, b): 0 for a, b in combinations(self.players, 2)}
        )
        for table in self.tables:
            for a, b in combinations(table, 2):
                counts[pair_key(a, b)] += 1
        return counts

    def distribution(self) -> dict[int, int]:
        """How many pairs meet how many times: {times: pairs}."""
        return dict(sorted(Counter(self.pair_meetings().values()).items()))

    @property
    def fewest_meetings(self) -> int:
        return min(self.pair_meetings().values(), default=0)

    @property
    def most_meetings(self) -> int:
        return max(self.pair_meetings().values(), default=0)

    @property
    def even(self) -> bool:
        """Every pair meets as often as every other, give or take one: the best possible."""
        return self.most_meetings - self.fewest_meetings <= 1


def default_rounds(players: int, table_size: int) -> int:
    """The fewest rounds in which every pair can meet: n - 1 at 2-player tables (n when n is
    odd); at larger tables enough to seat each player with all n - 1 others."""
    if table_size == 2:
        return players if players % 2 else players - 1
    if players <= table_size:
        return 1
    return -(-(players - 1) // (table_size - 1))


def schedule_section(
    players: Sequence[int], table_size: int, rounds: int | None = None, seed: int = 0
) -> Schedule:
    """Every table of every round of a section of `players` at tables of `table_size`."""
    if not MIN_TABLE <= table_size <= MAX_TABLE:
        raise FormatError(f"a table has {MIN_TABLE} to {MAX_TABLE} players, not {table_size}")
    if len(set(players)) != len(players):
        raise FormatError("a player is listed twice")
    if len(players) < 2:
        raise FormatError("a section needs at least two players")
    count = len(players)
    rounds = default_rounds(count, table_size) if rounds is None else rounds
    if rounds < 1:
        raise FormatError("a section plays at least one round")
    positions, out = _positions(count, table_size, rounds, seed)
    ids = tuple(players)
    named = tuple(tuple(tuple(ids[i] for i in table) for table in tables) for tables in positions)
    resting = tuple(tuple(ids[i] for i in those) for those in out)
    return Schedule(named, resting, ids)


@lru_cache(maxsize=64)
def _positions(count: int, table_size: int, rounds: int, seed: int):
    if table_size == 2:
        return _circle(count, rounds)
    if count <= table_size:
        return (((tuple(range(count)),),) * rounds, ((),) * rounds)
    design = None
    if count == table_size * table_size:
        design = affine_plane(table_size)
    elif (count, table_size) == (15, 3):
        design = kirkman_fifteen()
    if design is not None:
        chosen = tuple(design[r % len(design)] for r in range(rounds))
        return chosen, ((),) * rounds
    return _search(count, table_size, rounds, seed), ((),) * rounds


def _circle(count: int, rounds: int):
    """Berger tables: one player stays, the others turn round them a seat each round; each
    round's pairs cross the circle. An odd field adds an empty seat: who faces it sits out."""
    seats: list[int | None] = list(range(count)) + ([None] if count % 2 else [])
    size = len(seats)
    all_rounds, out = [], []
    for _ in range(rounds):
        pairs, resting = [], []
        for i in range(size // 2):
            a, b = seats[i], seats[size - 1 - i]
            if a is None or b is None:
                resting.append(a if b is None else b)
            else:
                pairs.append((a, b))
        all_rounds.append(tuple(pairs))
        out.append(tuple(resting))
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return tuple(all_rounds), tuple(out)


def _field(order: int):
    """Addition and multiplication of the finite field of `order` elements (3, 4 or 5)."""
    if order in (2, 3, 5):
        return (lambda a, b: (a + b) % order), (lambda a, b: (a * b) % order)
    if order == 4:  # GF(4) = GF(2)[x] / (x^2 + x + 1), elements as 2-bit numbers
        logs = {1: 0, 2: 1, 3: 2}

        def times(a, b):
            if not a or not b:
                return 0
            return (1, 2, 3)[(logs[a] + logs[b]) % 3]

        return (lambda a, b: a ^ b), times
    return None


def affine_plane(k: int):
    """The k + 1 parallel classes of the affine plane of order k (k = 2..5): each class seats
    the k*k players (point (x, y) is player k*x + y) at k tables of k, and any two players share
    exactly one table over all the classes. None if k is not a prime power."""
    field = _field(k)
    if field is None:
        return None
    plus, times = field
    classes = []
    for slope in range(k):
        tables = []
        for offset in range(k):
            tables.append(tuple(sorted(k * x + plus(times(slope, x), offset) for x in range(k))))
        classes.append(tuple(sorted(tables)))
    classes.append(tuple(tuple(k * x + y for y in range(k)) for x in range(k)))
    return tuple(classes)


def kirkman_fifteen():
    """Kirkman's fifteen schoolgirls: 15 players at 5 tables of 3 in 7 rounds, every pair
    meeting exactly once. Made as a packing of the projective space PG(3, 2): its points are
    the 15 nonzero 4-bit numbers, its lines the triples a, b, a ^ b; a spread is 5 lines that
    hold every point once (a round), and 7 spreads that share no line hold all 35 lines (every
    pair once). The spreads and the packing are found by a short exact-cover search."""
    points = range(1, 16)
    lines = sorted({tuple(sorted((a, b, a ^ b))) for a in points for b in points if a < b})
    spreads: list[tuple[tuple[int, ...], ...]] = []

    def spread(covered: frozenset, chosen: list):
        if len(covered) == 15:
            spreads.append(tuple(chosen))
            return
        first = min(set(points) - covered)
        for line in lines:
            if first in line and not covered & set(line):
                spread(covered | set(line), [*chosen, line])

    spread(frozenset(), [])

    def pack(used: frozenset, chosen: list):
        if len(chosen) == 7:
            return chosen
        first = min(set(lines) - used)
        for candidate in spreads:
            if first in candidate and not used & set(candidate):
                found = pack(used | set(candidate), [*chosen, candidate])
                if found:
                    return found
        return None

    packing = pack(frozenset(), [])
    return tuple(tuple(tuple(p - 1 for p in line) for line in one) for one in packing)


def unevenness(times: int) -> int:
    """What a pair meeting `times` times costs the schedule. Convex, so that with the number of
    meetings fixed the cost is least when they are spread most evenly; cubic rather than square
    so that, of two spreads with one variance, the one with a pair meeting far more often than
    the rest costs more."""
    return times**3


def _ideal(total: int, parts: int) -> int:
    """The least cost of `parts` pairs sharing `total` meetings: as even as can be."""
    base, extra = divmod(total, parts)
    return extra * unevenness(base + 1) + (parts - extra) * unevenness(base)


def _search(count: int, table_size: int, rounds: int, seed: int):
    """Anneal a schedule towards even pair meetings. Where the tables differ in size, who sits
    at the smaller ones is dealt round by round along a drawn order of the players, so that
    each plays the same number of games at smaller tables, give or take one; the moves keep
    that: a swap between two tables of one size in a round, or a swap between a larger and a
    smaller table made again the other way round in another round."""
    sizes = table_sizes(count, table_size)
    rng = random.Random(f"round robin {count} {table_size} {rounds} {seed}")
    smallest = min(sizes)
    small_seats = sum(size for size in sizes if size == smallest) if smallest < max(sizes) else 0
    drawn = list(range(count))
    rng.shuffle(drawn)
    met = [[0] * count for _ in range(count)]
    schedule: list[list[list[int]]] = []
    for r in range(rounds):  # greedy: each seat to whoever has met this table least
        at_small = {drawn[(r * small_seats + i) % count] for i in range(small_seats)}
        tables: list[list[int]] = []
        for size in sizes:
            left = [p for p in drawn if (p in at_small) == (size == smallest and small_seats > 0)]
            left = [p for p in left if not any(p in t for t in tables)]
            table = [left.pop(0)]
            while len(table) < size:
                best = min(left, key=lambda p: sum(met[p][q] for q in table))
                left.remove(best)
                table.append(best)
            tables.append(table)
            for x, y in combinations(table, 2):
                met[x][y] += 1
                met[y][x] += 1
        schedule.append(tables)

    def swap(r: int, i: int, a: int, j: int, b: int) -> int:
        """Swap seat a of table i with seat b of table j in round r; the change in cost."""
        ti, tj = schedule[r][i], schedule[r][j]
        u, v = ti[a], tj[b]
        delta = 0
        for here, leaving, coming in ((ti, u, v), (tj, v, u)):
            for x in here:
                if x in (leaving, coming):
                    continue
                delta += rise[met[coming][x]] - rise[met[leaving][x] - 1]
                met[leaving][x] -= 1
                met[x][leaving] -= 1
                met[coming][x] += 1
                met[x][coming] += 1
        ti[a], tj[b] = v, u
        where[r][u], where[r][v] = (j, b), (i, a)
        return delta

    rise = [unevenness(c + 1) - unevenness(c) for c in range(rounds + 1)]  # c to c + 1
    where = [[(0, 0)] * count for _ in range(rounds)]  # where[r][p]: p's table and seat
    for r, tables in enumerate(schedule):
        for i, table in enumerate(tables):
            for a, p in enumerate(table):
                where[r][p] = (i, a)

    same = [(i, j) for i, j in combinations(range(len(sizes)), 2) if sizes[i] == sizes[j]]
    across = [(i, j) for i, j in combinations(range(len(sizes)), 2) if sizes[i] != sizes[j]]
    current = sum(unevenness(met[x][y]) for x, y in combinations(range(count), 2))
    floor = _ideal(rounds * sum(size * (size - 1) // 2 for size in sizes), count * (count - 1) // 2)
    best, best_cost = [[list(t) for t in r] for r in schedule], current
    since_best = 0
    for step in range(SEARCH_STEPS):
        if best_cost == floor or since_best > STALE_STEPS:
            break
        since_best += 1
        temperature = HEAT * (1 - step / SEARCH_STEPS) + 0.05
        r = rng.randrange(rounds)
        undo = []
        if same and (not across or rounds == 1 or rng.random() < 0.5):
            i, j = rng.choice(same)
            a, b = rng.randrange(sizes[i]), rng.randrange(sizes[j])
            delta = swap(r, i, a, j, b)
            undo.append((r, i, a, j, b))
        elif across and rounds > 1:
            i, j = rng.choice(across)
            a, b = rng.randrange(sizes[i]), rng.randrange(sizes[j])
            u, v = schedule[r][i][a], schedule[r][j][b]
            turned = [
                q for q in range(rounds)
                if sizes[where[q][u][0]] == sizes[j] and sizes[where[q][v][0]] == sizes[i]
            ]  # fmt: skip
            if not turned:
                continue  # u and v sit at tables of the same sizes in every other round
            q = rng.choice(turned)
            (iu, au), (iv, av) = where[q][u], where[q][v]
            delta = swap(r, i, a, j, b)
            delta += swap(q, iu, au, iv, av)
            undo += [(r, i, a, j, b), (q, iu, au, iv, av)]
        else:
            break  # one table a round, or tables of two sizes in one round: nothing to move
        if delta > 0 and rng.random() >= math.exp(-delta / temperature):
            for move in reversed(undo):
                swap(*move)
            continue
        current += delta
        if current < best_cost:
            best, best_cost = [[list(t) for t in rr] for rr in schedule], current
            since_best = 0
    return tuple(tuple(tuple(sorted(t)) for t in tables) for tables in best)
