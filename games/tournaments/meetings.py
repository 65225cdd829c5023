"""Who met whom, and how often: the memory the Swiss pairing avoids and the round-robin
schedule evens out. Players are plain ids (ints)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from types import MappingProxyType


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


class Meetings:
    """How many times each pair of players has sat at the same table. A table of several counts
    once for each pair at it."""

    __slots__ = ("_rows",)

    def __init__(self, tables: Iterable[Sequence[int]] = ()):
        self._rows: dict[int, dict[int, int]] = {}
        for table in tables:
            self.add(table)

    def add(self, table: Sequence[int]) -> None:
        if len(set(table)) != len(table):
            raise ValueError(f"a player cannot sit twice at one table: {tuple(table)}")
        for a, b in combinations(table, 2):
            row_a = self._rows.setdefault(a, {})
            row_b = self._rows.setdefault(b, {})
            row_a[b] = row_a.get(b, 0) + 1
            row_b[a] = row_b.get(a, 0) + 1

    def count(self, a: int, b: int) -> int:
        return self._rows.get(a, _NONE).get(b, 0)

    def row(self, player: int) -> Mapping[int, int]:
        """Whom this player has met and how often (read only: the pairing's inner loops)."""
        return self._rows.get(player, _NONE)

    def opponents(self, player: int) -> frozenset[int]:
        return frozenset(self._rows.get(player, _NONE))

    def table_repeats(self, table: Sequence[int]) -> int:
        """Prior meetings among the players of one table: a pair who met twice counts two."""
        return sum(self.count(a, b) for a, b in combinations(table, 2))

    def repeats(self, tables: Iterable[Sequence[int]]) -> int:
        return sum(self.table_repeats(table) for table in tables)


_NONE: Mapping[int, int] = MappingProxyType({})
