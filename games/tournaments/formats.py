"""The organiser's settings of a tournament and the table arithmetic they imply.

Points are Fractions (a shared first place at a 2-player table is worth 1/2), never floats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise

MIN_TABLE = 2
MAX_TABLE = 5
# A player who abandons this many tournament games is paired no more (issue 37), like one who
# withdraws; the games they played keep counting.
ABANDONS_BEFORE_OUT = 2


class FormatError(ValueError):
    """The organiser's settings cannot make a tournament; the message says which and why."""


def default_place_points(size: int) -> tuple[Fraction, ...]:
    """One point for each player at the table you finish ahead of: 1/0 at two, 2/1/0 at three,
    3/2/1/0 at four, 4/3/2/1/0 at five. Shared places share (see PlacePoints.points), so a tie
    is worth a half point for each player tied with, as a drawn game of chess is."""
    return tuple(Fraction(size - 1 - place) for place in range(size))


def _default_by_size() -> dict[int, tuple[Fraction, ...]]:
    return {size: default_place_points(size) for size in range(MIN_TABLE, MAX_TABLE + 1)}


@dataclass(frozen=True)
class PlacePoints:
    """The points a place at a table is worth, for each table size from 2 to 5 (a Swiss of
    5-player tables seats a few tables of 4 when the players do not divide, and 2-player tables
    may appear in a small field, so every size has its row)."""

    by_size: Mapping[int, tuple[Fraction, ...]] = field(default_factory=_default_by_size)

    def __post_init__(self):
        rows = {}
        for size in range(MIN_TABLE, MAX_TABLE + 1):
            row = self.by_size.get(size, default_place_points(size))
            row = tuple(Fraction(value) for value in row)
            if len(row) != size:
                raise FormatError(f"a table of {size} needs {size} places' points, not {len(row)}")
            if any(value < 0 for value in row):
                raise FormatError("points per place cannot be negative")
            if any(better < worse for better, worse in pairwise(row)):
                raise FormatError("a better place cannot be worth fewer points than a worse one")
            rows[size] = row
        unknown = set(self.by_size) - set(rows)
        if unknown:
            raise FormatError(f"no table has {sorted(unknown)} players")
        object.__setattr__(self, "by_size", rows)

    def row(self, size: int) -> tuple[Fraction, ...]:
        return self.by_size[size]

    def points(self, places: Sequence[int]) -> tuple[Fraction, ...]:
        """The points of each seat at one table from its places (1-based, competition style:
        two sharing first are 1, 1 and the next is 3). Players who share a place share the
        points of the places they cover: the average of them."""
        check_places(places)
        row = self.row(len(places))
        out = []
        for place in places:
            shared = places.count(place)
            covered = row[place - 1 : place - 1 + shared]
            out.append(sum(covered, Fraction(0)) / shared)
        return tuple(out)

    @property
    def win(self) -> Fraction:
        """A win's points at a 2-player table: the default points of a bye."""
        return self.row(2)[0]


def check_places(places: Sequence[int]) -> None:
    """Refuse places that are not a competition ranking of the table (1, 1, 3 is one; 1, 2, 2
    is one; 1, 1, 2 and 2, 3 are not)."""
    size = len(places)
    if not MIN_TABLE <= size <= MAX_TABLE:
        raise FormatError(f"a table has {MIN_TABLE} to {MAX_TABLE} players, not {size}")
    for place in places:
        expected = 1 + sum(1 for other in places if other < place)
        if place != expected:
            raise FormatError(f"places {tuple(places)} are not a ranking of the table")


def table_sizes(players: int, size: int) -> tuple[int, ...]:
    """How many sit at each table when `players` sit at tables of `size`, largest first.

    As few tables as possible, as even as possible: tables of `size` and of one fewer, never a
    table of one. A field smaller than a table sits at one table, and a few small fields need
    tables of two fewer to stay even (5 at fours: 3 + 2; 6 at fives: 3 + 3; 7 at fives: 4 + 3;
    11 at fives: 4 + 4 + 3). At 2-player tables an odd player out is a bye, which the Swiss
    pairing decides, not this."""
    if not MIN_TABLE <= size <= MAX_TABLE:
        raise FormatError(f"a table has {MIN_TABLE} to {MAX_TABLE} players, not {size}")
    if players < 2:
        raise FormatError("at least two players are needed to seat a table")
    if size == 2:
        return (2,) * (players // 2)
    tables = -(-players // size)
    small, extra = divmod(players, tables)
    return (small + 1,) * extra + (small,) * (tables - extra)


def still_paired(withdrawn: bool, abandons: int) -> bool:
    """Whether a player is seated in new rounds: not once they withdraw, nor once they have
    abandoned ABANDONS_BEFORE_OUT games of the tournament. Their past games keep counting."""
    return not withdrawn and abandons < ABANDONS_BEFORE_OUT


@dataclass(frozen=True)
class SwissFormat:
    """A Swiss tournament: `rounds` rounds at tables of `table_size`. A bye (2-player tables, odd
    count) is worth `bye_points`, by default a win's points."""

    rounds: int
    table_size: int
    place_points: PlacePoints = field(default_factory=PlacePoints)
    bye_points: Fraction | None = None

    def __post_init__(self):
        if self.rounds < 1:
            raise FormatError("a Swiss tournament has at least one round")
        if not MIN_TABLE <= self.table_size <= MAX_TABLE:
            raise FormatError(f"a table has {MIN_TABLE} to {MAX_TABLE} players")
        bye = self.place_points.win if self.bye_points is None else Fraction(self.bye_points)
        if bye < 0:
            raise FormatError("a bye cannot be worth negative points")
        object.__setattr__(self, "bye_points", bye)


@dataclass(frozen=True)
class RoundRobinFormat:
    """Round-robin sections of at most `section_size` players (balanced: sizes differ by at most
    one), at tables of `table_size`. `rounds` is how many games each player plays in the section
    at once; None is the fewest in which every pair can meet (everyone meets everyone once at
    2-player tables)."""

    section_size: int
    table_size: int
    place_points: PlacePoints = field(default_factory=PlacePoints)
    rounds: int | None = None

    def __post_init__(self):
        if not MIN_TABLE <= self.table_size <= MAX_TABLE:
            raise FormatError(f"a table has {MIN_TABLE} to {MAX_TABLE} players")
        if self.section_size < self.table_size:
            raise FormatError("a section must seat at least one full table")
        if self.rounds is not None and self.rounds < 1:
            raise FormatError("a section plays at least one round")
