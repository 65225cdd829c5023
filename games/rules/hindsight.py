"""Hindsight: the best chip a player could have built from the tiles the game offered them.

The question, precisely (docs/engine.md says the same):

- At each draft the player *chose* (a confirmed `Draft`), they could have taken any tile of the
  draw column as it stood at that moment of the game (`offered`), other than the tiles that
  forced takes gave them anyway, and no tile twice. Their forced takes stay as they were.
- The other players' drafts stay as they were played. When the player takes a tile that another
  player took later, that player takes instead a tile the player gave up (one the player took
  in the game at an earlier draft and not in the alternative). Such a tile is always there: it
  was in the draw column when the player took it in the game, and every tile taken in the game
  between then and the later draft is still taken by the same player (or is such a substitute),
  so the draw column the player meets at each of their drafts is the one of the game, less what
  they took in the alternative. So the tiles the player may end with are exactly the sets that
  take one tile from each draft's offer (a matching of drafts to tiles), plus the forced takes.
- Hindsight is the best score of such a set (the solver's best arrangement of it).

Every such set is a basis of a transversal matroid over the offered tiles. The search
(`hindsight`): the solver's best chip from *every* tile ever offered plus the forced takes is an
upper bound (`bound_score`); the heaviest part of that chip that some drafts could have taken is
found greedily (exact for a matroid), the other drafts filled by the chip bound of engine.py,
and the set solved; then tiles are exchanged one for one (the exchanges the bound rates best
first, each checked by the solver) while that improves the score, within `max_solves` solver
calls. When the best found equals the bound it is proved (`proved`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import TakeLast, action_from_json
from .deal import STANDARD
from .potential import Potential, exact_gain
from .replay import Event
from .review import chosen_drafts
from .solver import best_arrangement, packed_tiles
from .tiles import TILE_VALUE


@dataclass
class Change:
    """A draft of the hindsight set that differs from the game: draft `number` (its step in the
    log), the tile taken in the game and the one to take instead."""

    number: int
    step: int
    taken: int
    instead: int

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "step": self.step,
            "taken": self.taken,
            "instead": self.instead,
        }


@dataclass
class Hindsight:
    """A seat's hindsight: its score in the game, the best score of the tiles it could have
    drafted (`best_score`, its arrangement `cells` in the JSON of `Board.cells_to_json`, the
    tiles left over `tray`), the drafts to change, the bound and whether the best is proved."""

    seat: int
    actual_score: int
    best_score: int
    bound_score: int
    proved: bool
    tiles: list[int]
    cells: list
    tray: list[int]
    changes: list[Change] = field(default_factory=list)
    solves: int = 0

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "actual_score": self.actual_score,
            "best_score": self.best_score,
            "bound_score": self.bound_score,
            "proved": self.proved,
            "tiles": self.tiles,
            "cells": self.cells,
            "tray": self.tray,
            "changes": [c.to_json() for c in self.changes],
            "solves": self.solves,
        }


class _Offers:
    """The drafts (each its offered tiles) and matchings of tiles to drafts."""

    def __init__(self, offered: Sequence[frozenset[int]]) -> None:
        self.offered = list(offered)
        self.drafts_of: dict[int, list[int]] = {}
        for j, tiles in enumerate(self.offered):
            for tile in sorted(tiles):
                self.drafts_of.setdefault(tile, []).append(j)

    def matching(self, tiles: Iterable[int]) -> dict[int, int] | None:
        """A matching draft -> tile that covers `tiles`, or None if there is none."""
        owner: dict[int, int] = {}  # draft -> tile
        for tile in tiles:
            if not self._augment(tile, owner, set()):
                return None
        return owner

    def _augment(self, tile: int, owner: dict[int, int], seen: set[int]) -> bool:
        for j in self.drafts_of.get(tile, ()):
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or self._augment(owner[j], owner, seen):
                owner[j] = tile
                return True
        return False


def hindsight(
    players: int,
    seed: int,
    events: Iterable[Event],
    seat: int,
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
    max_solves: int = 40,
    solver_nodes: int | None = 50_000,
) -> Hindsight:
    """The seat's hindsight (see the module docstring)."""
    events = list(events)
    drafts, final = chosen_drafts(
        players, seed, events, first_seat, strict_finish=strict_finish, layout=layout
    )
    forced = _forced_tiles(events, seat)
    own = [d for d in drafts if d.seat == seat]
    offered = [frozenset(d.before.draw_tiles()) - forced for d in own]
    actual = [d.tile for d in own]
    colours = final.boards[seat].colours
    return search_hindsight(
        seat,
        colours,
        offered,
        actual,
        forced,
        actual_score=final.score(seat).score,
        numbers=[(d.before.drafts + 1, d.step) for d in own],
        max_solves=max_solves,
        solver_nodes=solver_nodes,
    )


def _forced_tiles(events: Sequence[Event], seat: int) -> frozenset[int]:
    found = set()
    for who, action in events:
        if isinstance(action, dict):
            action = action_from_json(action)
        if who == seat and isinstance(action, TakeLast):
            found.add(action.tile_id)
    return frozenset(found)


def search_hindsight(
    seat: int,
    colours: Sequence,
    offered: Sequence[frozenset[int]],
    actual: Sequence[int],
    forced: frozenset[int],
    *,
    actual_score: int,
    numbers: Sequence[tuple[int, int]],
    max_solves: int = 40,
    solver_nodes: int | None = 50_000,
) -> Hindsight:
    """The search of `hindsight` on its inputs: the offers of the seat's drafts, the tiles it
    took at them, its forced tiles."""
    offers = _Offers(offered)
    potential = Potential(colours)
    forced_packed = packed_tiles(forced)
    total = len(forced) + len(offered)
    solves = 0

    def score_of(tiles: frozenset[int]) -> int:
        nonlocal solves
        solves += 1
        return exact_gain(colours, forced_packed + packed_tiles(tiles), solver_nodes) - 2 * total

    everything = frozenset().union(*offered) if offered else frozenset()
    dream = best_arrangement(colours, sorted(everything | forced))
    solves += 1
    bound_score = dream.score + 2 * (len(everything | forced) - total)
    best_tiles = frozenset(actual)
    best = score_of(best_tiles)

    # The heaviest part of the dream chip that the drafts could have taken (greedy: a matroid).
    chip = sorted(
        (t for t in dream.tiles_used if t not in forced), key=lambda t: (-TILE_VALUE[t], t)
    )
    chosen: list[int] = []
    for tile in chip:
        if offers.matching([*chosen, tile]) is not None:
            chosen.append(tile)
    start = _filled(offers, chosen, potential, forced_packed, everything)
    if start != best_tiles:
        found = score_of(start)
        if found > best:
            best, best_tiles = found, start
    # Exchanges, the bound's favourites first, while they improve and solves are left.
    improved = True
    while improved and solves < max_solves and best < bound_score:
        improved = False
        for candidate in _exchanges(offers, best_tiles, everything, potential, forced_packed):
            if solves >= max_solves:
                break
            found = score_of(candidate)
            if found > best:
                best, best_tiles, improved = found, candidate, True
                break
    result = best_arrangement(colours, sorted(best_tiles | forced))
    if result.score < actual_score:  # the capped searches missed what the game's tiles make
        best_tiles = frozenset(actual)
        result = best_arrangement(colours, sorted(best_tiles | forced))
    matching = offers.matching(sorted(best_tiles)) or {}
    changes = _changes(offers, matching, actual, numbers)
    return Hindsight(
        seat=seat,
        actual_score=actual_score,
        best_score=result.score,
        bound_score=bound_score,
        proved=result.score >= bound_score,
        tiles=sorted(best_tiles | forced),
        cells=result.board.cells_to_json(),
        tray=list(result.tray),
        changes=changes,
        solves=solves,
    )


def _filled(
    offers: _Offers,
    chosen: list[int],
    potential: Potential,
    base: int,
    everything: frozenset[int],
) -> frozenset[int]:
    """`chosen` completed to one tile per draft: each time the tile the bound likes most."""
    tiles = list(chosen)
    supply = base + packed_tiles(tiles)
    while len(tiles) < len(offers.offered):
        ranked = sorted(
            everything - set(tiles),
            key=lambda t: (-_delta(potential, supply, t), -TILE_VALUE[t], t),
        )
        for tile in ranked:
            if offers.matching([*tiles, tile]) is not None:
                tiles.append(tile)
                supply += packed_tiles([tile])
                break
        else:  # pragma: no cover - the game's own drafts are always a matching
            break
    return frozenset(tiles)


def _delta(potential: Potential, supply: int, tile: int) -> int:
    return potential.gain(supply + packed_tiles([tile])) - potential.gain(supply)


def _exchanges(
    offers: _Offers,
    tiles: frozenset[int],
    everything: frozenset[int],
    potential: Potential,
    base: int,
) -> list[frozenset[int]]:
    """The sets one exchange away that the drafts could have taken, best first by the bound."""
    supply = base + packed_tiles(tiles)
    rated = []
    for out in sorted(tiles):
        less = supply - packed_tiles([out])
        for into in sorted(everything - tiles):
            gain = potential.gain(less + packed_tiles([into]))
            rated.append((-gain, out, into))
    rated.sort()
    found = []
    seen = set()
    for _, out, into in rated:
        candidate = (tiles - {out}) | {into}
        if candidate in seen:
            continue
        seen.add(candidate)
        if offers.matching(sorted(candidate)) is not None:
            found.append(candidate)
        if len(found) >= 12:
            break
    return found


def _changes(
    offers: _Offers,
    matching: dict[int, int],
    actual: Sequence[int],
    numbers: Sequence[tuple[int, int]],
) -> list[Change]:
    """The drafts whose tile differs, after swapping the matching's tiles between drafts so
    that as many drafts as possible keep the game's tile."""
    matching = dict(matching)
    changed = True
    while changed:
        changed = False
        for j, tile in list(matching.items()):
            want = actual[j]
            if tile == want:
                continue
            other = next((k for k, t in matching.items() if t == want), None)
            if other is not None and tile in offers.offered[other]:
                matching[j], matching[other] = want, tile
                changed = True
    return [
        Change(numbers[j][0], numbers[j][1], actual[j], tile)
        for j, tile in sorted(matching.items())
        if tile != actual[j]
    ]


def hindsight_all(
    players: int, seed: int, events: Iterable[Event], first_seat: int = 0, **options: Any
) -> list[Hindsight]:
    """Every seat's hindsight."""
    events = list(events)
    return [
        hindsight(players, seed, events, seat, first_seat, **options) for seat in range(players)
    ]


__all__ = ["Change", "Hindsight", "hindsight", "hindsight_all", "search_hindsight"]
