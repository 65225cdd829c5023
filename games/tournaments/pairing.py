"""The Swiss pairing: who sits with whom in the next round.

Players are ranked by points, then by seed. At 2-player tables the round is a weighted matching
(games/tournaments/matching.py); at tables of 3 to 5 it is a grouping by standing with local swaps
(games/tournaments/grouping.py). Either way the fewest possible pairs meet again comes first, and
every round reports its repeat meetings beside a lower bound on them (docs/tournaments.md says
how each bound is made and why it is one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .formats import MAX_TABLE, MIN_TABLE, FormatError, still_paired, table_sizes
from .grouping import group_tables
from .matching import pair_players, pairs_repeat_bound
from .meetings import Meetings


class PairingError(ValueError):
    """The round cannot be paired (fewer than two players left to seat)."""


@dataclass(frozen=True)
class SwissPlayer:
    """A player as the pairing sees them: `seed` is their place in the seeding (0 is the top
    seed), `points` their tournament points so far, `byes` the byes they have had."""

    id: int
    seed: int
    points: Fraction = Fraction(0)
    byes: int = 0
    withdrawn: bool = False
    abandons: int = 0

    @property
    def paired(self) -> bool:
        return still_paired(self.withdrawn, self.abandons)


@dataclass(frozen=True)
class SwissRound:
    """One round's tables, best table first, each table's players in standing order; `bye` is
    the player left out at 2-player tables when the count is odd. `repeats` counts the prior
    meetings of the pairs seated together (a pair who met twice counts two); no pairing of this
    round can have fewer than `repeat_bound`."""

    tables: tuple[tuple[int, ...], ...]
    bye: int | None
    repeats: int
    repeat_bound: int

    @property
    def seated(self) -> tuple[int, ...]:
        return tuple(player for table in self.tables for player in table)


def standing_order(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    """Most points first; equal points in seeding order."""
    return sorted(players, key=lambda p: (-p.points, p.seed, p.id))


def pair_round(players: Sequence[SwissPlayer], meetings: Meetings, table_size: int) -> SwissRound:
    """Seat the players still in the tournament for the next round at tables of `table_size`."""
    if not MIN_TABLE <= table_size <= MAX_TABLE:
        raise FormatError(f"a table has {MIN_TABLE} to {MAX_TABLE} players, not {table_size}")
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise PairingError("a player is listed twice")
    ranked = standing_order([p for p in players if p.paired])
    if len(ranked) < 2:
        raise PairingError("fewer than two players are left to pair")
    order = [p.id for p in ranked]
    points = {p.id: p.points for p in ranked}
    if table_size == 2:
        byes = {p.id: p.byes for p in ranked}
        pairs, bye = pair_players(order, points, byes, meetings)
        tables = tuple(pairs)
        bound = pairs_repeat_bound(order, meetings)
    else:
        sizes = table_sizes(len(order), table_size)
        seated, bound = group_tables(order, points, sizes, meetings)
        tables = tuple(seated)
        bye = None
    return SwissRound(tables, bye, meetings.repeats(tables), bound)
