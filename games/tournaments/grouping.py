"""The Swiss pairing at tables of 3 to 5: grouping by standing, then local swaps.

The field in standing order fills the tables from the top, the larger tables first. Where whole
tables hold players of one score, those players are dealt across those tables in seeding order
(the slide: the best of them one to a table, then the next best, and so on), as a 2-player Swiss
folds a score group, so that the top seeds of a score group do not all sit together. Then swaps
of one player between two tables take out repeat meetings: each swap chosen removes the most
repeats and moves players the least far from the table their standing gave them, first between
neighbouring tables, then further apart while repeats remain above the lower bound. A last
pass swaps back what does not need to be apart. In a small field where repeats remain above the
simple lower bound, an exact search finds the fewest possible: the seating takes them if the
swaps missed them, and they are the bound reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations

from .meetings import Meetings

# A field this small whose swaps leave more repeats than the simple bound gets an exact search
# (fewest_repeats), which stops after SEARCH_BUDGET steps without an answer.
EXACT_PLAYERS = 30
SEARCH_BUDGET = 200_000


def _by_standing(order: Sequence[int], points: Mapping[int, Fraction], sizes: Sequence[int]):
    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(list(order[start : start + size]))
        start += size
    index = 0
    while index < len(tables):
        level = points[tables[index][0]]
        end = index
        while end < len(tables) and all(points[p] == level for p in tables[end]):
            end += 1
        if end - index > 1:
            _slide(tables, index, end)
        index = max(end, index + 1)
    return tables


def _slide(tables: list[list[int]], start: int, end: int) -> None:
    """Deal the players of tables[start:end] (one score, in seeding order) one to a table."""
    players = [p for table in tables[start:end] for p in table]
    sizes = [len(table) for table in tables[start:end]]
    dealt: list[list[int]] = [[] for _ in sizes]
    queue = iter(players)
    for turn in range(max(sizes)):
        for index, size in enumerate(sizes):
            if turn < size:
                dealt[index].append(next(queue))
    tables[start:end] = dealt


def group_tables(
    order: Sequence[int],
    points: Mapping[int, Fraction],
    sizes: Sequence[int],
    meetings: Meetings,
) -> tuple[list[tuple[int, ...]], int]:
    """Seat the field (`order`: in standing order) at tables of `sizes`, best table first,
    each table in standing order. Returns the tables and a lower bound on the repeat meetings
    of any seating (the exact minimum when the search for it finished, see fewest_repeats)."""
    if sum(sizes) != len(order):
        raise ValueError("the tables' seats and the players differ in number")
    rank = {player: index for index, player in enumerate(order)}
    tables = _by_standing(order, points, sizes)
    home = {player: index for index, table in enumerate(tables) for player in table}
    bound = tables_repeat_bound(order, sizes, meetings)
    _swap_out_repeats(tables, home, meetings, bound)
    repeats = meetings.repeats(tables)
    if repeats > bound and len(order) <= EXACT_PLAYERS:
        exact = fewest_repeats(order, sizes, meetings, bound)
        if exact is not None:
            bound, best = exact
            if repeats > bound:
                tables = _in_place_order(best, sizes, home)
    return [tuple(sorted(table, key=rank.__getitem__)) for table in tables], bound


def _swap_gain(tables, home, meetings, i, u, j, v):
    """(change in repeats, change in displacement) of swapping u of table i with v of table j."""
    row_u, row_v = meetings.row(u), meetings.row(v)
    repeats = 0
    for x in tables[i]:
        if x != u:
            repeats += row_v.get(x, 0) - row_u.get(x, 0)
    for y in tables[j]:
        if y != v:
            repeats += row_u.get(y, 0) - row_v.get(y, 0)
    return repeats, _moved(home, i, u, j, v)


def _moved(home, i, u, j, v):
    return abs(j - home[u]) - abs(i - home[u]) + abs(i - home[v]) - abs(j - home[v])


def _best_swap(tables, home, meetings, i, others, want):
    """The best swap of a player of table i with one of a table in `others` that `want`s:
    least (change in repeats, change in displacement), the first found of equals."""
    best = None
    here = tables[i]
    rows = {p: meetings.row(p) for p in here}
    alone_here = {u: sum(rows[u].get(x, 0) for x in here) for u in here}
    for j in others:
        there = tables[j]
        for v in there:
            rows[v] = meetings.row(v)
        alone_there = {v: sum(rows[v].get(y, 0) for y in there) for v in there}
        joining_here = {v: sum(rows[v].get(x, 0) for x in here) for v in there}
        for u in here:
            row_u = rows[u]
            u_there = sum(row_u.get(y, 0) for y in there)
            for v in there:
                met = row_u.get(v, 0)
                repeats = (
                    (joining_here[v] - met) - alone_here[u] + (u_there - met) - alone_there[v]
                )  # fmt: skip
                moved = _moved(home, i, u, j, v)
                if want(repeats, moved) and (best is None or (repeats, moved) < best[0]):
                    best = ((repeats, moved), j, u, v)
    return best


def _swap_out_repeats(tables, home, meetings: Meetings, bound: int) -> None:
    """Swap out repeats until the bound or until no swap between any two tables takes one out;
    then swap back towards the standing what the repeats do not need apart, and again, until
    neither finds a swap (each swap lowers repeats, or displacement at no cost in repeats, so
    this ends)."""
    repeats = meetings.repeats(tables)
    seat = {p: i for i, table in enumerate(tables) for p in table}
    homed: list[list[int]] = [[] for _ in tables]
    for player, index in home.items():
        homed[index].append(player)

    def swap(i, j, u, v):
        tables[i][tables[i].index(u)] = v
        tables[j][tables[j].index(v)] = u
        seat[u], seat[v] = j, i

    while True:
        reach = 1
        while repeats > bound:
            improved = False
            for i in range(len(tables)):
                if not meetings.table_repeats(tables[i]):
                    continue
                near = [j for j in range(max(0, i - reach), min(len(tables), i + reach + 1))]
                near.remove(i)
                best = _best_swap(tables, home, meetings, i, near, lambda r, m: r < 0)
                if best is not None:
                    (gain, _), j, u, v = best
                    swap(i, j, u, v)
                    repeats += gain
                    improved = True
            if not improved:
                if reach >= len(tables) - 1:
                    break
                reach = min(len(tables) - 1, reach * 2)
        moved_back = False
        changed = True
        while changed:
            changed = False
            for i in range(len(tables)):
                homes = {home[p] for p in tables[i]} - {i}
                if not homes:
                    continue
                away = {seat[p] for p in homed[i] if seat[p] != i}
                others = sorted(homes | away)
                best = _best_swap(tables, home, meetings, i, others, lambda r, m: r <= 0 and m < 0)
                if best is not None:
                    (gain, _), j, u, v = best
                    swap(i, j, u, v)
                    repeats += gain
                    changed = moved_back = True
        if not moved_back or repeats <= bound:
            return


class _OutOfBudget(Exception):
    pass


def fewest_repeats(order: Sequence[int], sizes: Sequence[int], meetings: Meetings, floor: int = 0):
    """The fewest repeat meetings of any seating of these players at tables of these sizes, and
    one seating that has them (tables in no particular order), by a search over every way to
    split the players (each table found from its first unseated player, so that tables of one
    size are not tried in every order), pruned by the best found so far and stopped at `floor`
    (a known lower bound). None if the search would visit more than SEARCH_BUDGET steps."""
    counts: dict[int, int] = {}
    for size in sizes:
        counts[size] = counts.get(size, 0) + 1
    best: list = [None, None]
    steps = [0]

    def search(left: list[int], chosen: list[tuple[int, ...]], repeats: int) -> bool:
        if not left:
            best[0], best[1] = repeats, list(chosen)
            return repeats <= floor
        first, rest = left[0], left[1:]
        for size in sorted((s for s, n in counts.items() if n), reverse=True):
            for mates in combinations(rest, size - 1):
                steps[0] += 1
                if steps[0] > SEARCH_BUDGET:
                    raise _OutOfBudget
                table = (first, *mates)
                more = repeats + meetings.table_repeats(table)
                if best[0] is not None and more >= best[0]:
                    continue
                counts[size] -= 1
                chosen.append(table)
                done = search([p for p in rest if p not in mates], chosen, more)
                chosen.pop()
                counts[size] += 1
                if done:
                    return True
        return False

    try:
        search(list(order), [], 0)
    except _OutOfBudget:
        return None
    return best[0], best[1]


def _in_place_order(tables, sizes: Sequence[int], home: Mapping[int, int]) -> list[list[int]]:
    """Put unordered tables at the table positions of `sizes` (largest first): within each size,
    by the average position their players' standing gave them."""
    placed = []
    for size in sorted(set(sizes), reverse=True):
        these = [list(table) for table in tables if len(table) == size]
        these.sort(key=lambda table: (sum(home[p] for p in table) / size, sorted(table)))
        placed += these
    return placed


def tables_repeat_bound(order: Sequence[int], sizes: Sequence[int], meetings: Meetings) -> int:
    """A lower bound on the repeat meetings of any seating of these players at these tables.

    Each player sits with at least (smallest table - 1) others; one who has not met that many
    of the players here must meet again at least the difference, and a repeated pair makes up
    the difference of two players at most."""
    present = set(order)
    mates = min(sizes) - 1
    unmet = [len(order) - 1 - len(meetings.opponents(p) & present) for p in order]
    short = sum(max(0, mates - count) for count in unmet)
    return -(-short // 2)
