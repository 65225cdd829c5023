"""Final ranking: the seats that stayed first, higher score first; equal scores, more chip tiles
first; still equal, shared. The seats that left the game after them, who stayed longer first;
those who left in the same turn share their place."""

from __future__ import annotations

from collections.abc import Sequence


def places(keys: Sequence[tuple[int, int]], left: Sequence[int | None] = ()) -> list[int]:
    """Return the place (1-based) of each entry of (score, chip_tiles), competition style.

    Equal keys share a place and the next place is skipped: (5, 2), (5, 2), (1, 0) -> 1, 1, 3.
    `left` gives, for each entry, the turn in which that seat left the game, or None if it
    stayed (empty: everyone stayed). A seat that left comes after every seat that stayed,
    whatever its score; among those that left, a later turn ranks higher, and the same turn
    shares a place: stayed (5, 2), left in turn 9, left in turn 4, left in turn 9 -> 1, 2, 4, 2.
    """
    left = list(left) if left else [None] * len(keys)
    stayed = [key for key, turn in zip(keys, left, strict=True) if turn is None]
    out = []
    for key, turn in zip(keys, left, strict=True):
        if turn is None:
            out.append(1 + sum(1 for other in stayed if other > key))
        else:
            later = sum(1 for other in left if other is not None and other > turn)
            out.append(1 + len(stayed) + later)
    return out
