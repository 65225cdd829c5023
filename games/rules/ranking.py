"""Final ranking: higher score first; equal scores, more chip tiles first; still equal, shared."""

from __future__ import annotations

from collections.abc import Sequence


def places(keys: Sequence[tuple[int, int]]) -> list[int]:
    """Return the place (1-based) of each entry of (score, chip_tiles), competition style.

    Equal keys share a place and the next place is skipped: (5, 2), (5, 2), (1, 0) -> 1, 1, 3.
    """
    return [1 + sum(1 for other in keys if other > key) for key in keys]
