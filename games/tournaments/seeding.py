"""The seeding: the order of the entrants before the first game, which the Swiss pairing and the
sections start from."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Entrant:
    """A registered player: `rating` None when they have no rating yet."""

    id: int
    rating: float | None = None


def seeding_order(entrants: Sequence[Entrant], by_rating: bool, seed: int) -> list[int]:
    """The entrants' ids, top seed first. By rating: highest first, the unrated last, equal
    ratings by id (the earlier registration first). Otherwise a draw, the same for the same
    `seed` (the tournament's), so the seeding can be checked afterwards."""
    ids = [entrant.id for entrant in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant is listed twice")
    if by_rating:
        ordered = sorted(
            entrants,
            key=lambda e: (e.rating is None, -(e.rating if e.rating is not None else 0), e.id),
        )
        return [entrant.id for entrant in ordered]
    drawn = sorted(ids)
    random.Random(f"seeding {seed}").shuffle(drawn)
    return drawn
