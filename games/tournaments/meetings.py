"""Who met whom, and how often: the memory the Swiss pairing avoids and the round-robin
schedule evens out. Players are plain ids (ints)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


class Meetings:
    """How many times each pair of players has sat at the same table. A table of several counts
    once for each pair at it."""

    __slots__ = ("_count", "_opponents")

    def __init__(self, tables: Iterable[Sequence[int]] = ()):
        self._count: Counter[tuple[int, int]] = Counter()
        self._opponents: dict[int, set[int]] = {}
        for table in tables:
            self.add(table)

    def add(self, table: Sequence[int]) -> None:
        if len(set(table)) != len(table):
            raise ValueError(f"a player cannot sit twice at one table: {tuple(table)}")
        for a, b in combinations(table, 2):
            self._count[pair_key(a, b)] += 1
            self._opponents.setdefault(a, set()).add(b)
            self._opponents.setdefault(b, set()).add(a)

    def count(self, a: int, b: int) -> int:
        return self._count.get(pair_key(a, b), 0)

    def opponents(self, player: int) -> frozenset[int]:
        return frozenset(self._opponents.get(player, ()))

    def table_repeats(self, table: Sequence[int]) -> int:
        """Prior meetings among the players of one table: a pair who met twice counts two."""
        return sum(self.count(a, b) for a, b in combinations(table, 2))

    def repeats(self, tables: Iterable[Sequence[int]]) -> int:
        return sum(self.table_repeats(table) for table in tables)

    def pairs(self) -> dict[tuple[int, int], int]:
        return dict(self._count)

    def copy(self) -> Meetings:
        other = Meetings()
        other._count = self._count.copy()
        other._opponents = {player: set(them) for player, them in self._opponents.items()}
        return other
