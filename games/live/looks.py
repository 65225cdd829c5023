"""Only what changed: of a seat's or the pool's pieces, the ones whose look differs from what a
page shows, each swapped by its id (htmx out of band).

A piece (games/live/pieces.py `Piece`: a space, a tray, a seat's head, a column of
the pool) carries its look, a checksum of its markup, in ``data-look``. What a page shows is
known two ways:

- a move's answer: the page says it, sending the looks of the mover's seat and of the pool in
  the X-Page-Looks header (games/static/games/live.js), "id=look" pairs separated by spaces;
- a push: the page shows the version before it (games/live/consumers.py makes sure), and the
  other players' boards and the pool depend on the version and the viewer only, so the process
  draws that version too, if it still holds it (games/live/drawing.py).

Without either, the whole seat or pool is drawn, as a page that is really behind needs.
"""

import re

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from games.live import pieces

LOOKS_HEADER = "X-Page-Looks"
# A seat (its own look, a head, 25 spaces, a tray's title and tiles, its actions) and a pool
# (its own look, a title, its columns): a page sends no more than this.
MOST_LOOKS = 64
_PAIR = re.compile(r"([a-z0-9-]{1,32})=([0-9a-f]{8})")


def page_looks(header: str | None) -> dict[str, str]:
    """The looks a page says it shows ({piece id: look}); {} for a missing or bad header."""
    if not header or len(header) > MOST_LOOKS * 44:
        return {}
    pairs = header.split()
    if len(pairs) > MOST_LOOKS:
        return {}
    looks = {}
    for pair in pairs:
        found = _PAIR.fullmatch(pair)
        if found is None:
            return {}
        looks[found.group(1)] = found.group(2)
    return looks


def seat_changes(context: dict, seat, looks: dict[str, str], drawn=None) -> str:
    """`seat`'s pieces whose look differs from `looks`, or the whole seat when the page does not
    show it as it is drawn now (another seat's look, or no looks at all)."""
    drawn = drawn or pieces.seat_drawing(context, seat)
    if looks.get(f"seat-{seat.number}") != drawn.look:
        return _whole("seat", context, seat=seat, drawn=drawn)
    return changed_pieces(drawn.pieces(), looks)


def pool_changes(context: dict, looks: dict[str, str], drawn=None) -> str:
    """The pool's pieces whose look differs from `looks`, or the whole pool."""
    drawn = drawn or pieces.pool_drawing(context)
    if looks.get("pool") != drawn.look:
        return _whole("pool", context, drawn=drawn)
    return changed_pieces(drawn.pieces(), looks)


def looks_of(drawn) -> dict[str, str]:
    """The looks a page shows after drawing `drawn` (a seat's or the pool's drawing)."""
    own = "pool" if isinstance(drawn, pieces.PoolDrawing) else drawn.head.id[: -len("-head")]
    return {own: drawn.look, **{piece.id: piece.look for piece in drawn.pieces()}}


def changed_pieces(pieces, looks: dict[str, str]) -> str:
    changed = (_out_of_band(piece) for piece in pieces if looks.get(piece.id) != piece.look)
    return mark_safe("".join(changed))  # pieces drawn by templates


def _out_of_band(piece) -> str:
    at = piece.html.index(f'id="{piece.id}"')
    return mark_safe(f'{piece.html[:at]}hx-swap-oob="true" {piece.html[at:]}')


def _whole(name: str, context: dict, **extra) -> str:
    return render_to_string(f"games/partials/{name}.html", {**context, **extra, "oob": True})
