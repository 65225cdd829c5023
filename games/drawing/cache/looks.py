"""Only what changed: of the status, a seat's or the pool's pieces, the ones whose look differs
from what a page shows, each swapped by its id (htmx out of band).

A piece (games/drawing/pieces.py `Piece`: the status, a space, a tray, a seat's head, a column of
the pool) carries its look in ``data-look``: a checksum of its markup, or for a space and a
column of what it is drawn from (pieces.py `LaterPiece`: a piece the page shows already is not
drawn at all). What a page shows is known two ways:

- a move's answer: the page says it, sending the looks of the status, the seats and the pool in
  the X-Page-Looks header (games/static/games/live.js; `page_looks` has its form, about 250
  bytes a seat);
- a push: the page's socket keeps what the page shows (games/live/consumers.py): what the page
  said when it connected and after its own moves' answers, and the looks of what the socket
  sent it since.

Without either, the whole seat or pool is drawn, as a page that is really behind needs.
"""

import re

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from games.drawing import pieces

LOOKS_HEADER = "X-Page-Looks"
# "pool:" or "seat-N:" followed by the looks of that part and of each of its pieces, in the
# order of the page (the order of `pieces()`), 8 hex digits each, or "status:" and the status's
# look; parts separated by spaces.
_PART = re.compile(r"(pool|seat-[0-9]|status):((?:[0-9a-f]{8}){1,40})")
MOST_PARTS = 7  # the status, the pool and at most five seats
STATUS = "status"


_LINE_BREAK = re.compile(r"[ \t]*\n\s*")


def compact(html: str) -> str:
    """The markup of an answer or a push without its templates' blank lines and indentation:
    whitespace that holds a line break becomes one line break, the same space to the browser
    (none of the parts sent so holds a <pre> or a <textarea>). About a fifth of a status."""
    return _LINE_BREAK.sub("\n", html)


def page_looks(header: str | None) -> dict[str, list[str]]:
    """The looks a page says it shows ({"pool" or "seat-N": [its look, each piece's look]}),
    {} for a missing or malformed header."""
    parts = (header or "").split()
    if len(parts) > MOST_PARTS:
        return {}
    looks = {}
    for part in parts:
        found = _PART.fullmatch(part)
        if found is None:
            return {}
        text = found.group(2)
        looks[found.group(1)] = [text[at : at + 8] for at in range(0, len(text), 8)]
    return looks


def _by_piece(own: str, drawn, looks: dict[str, list[str]]) -> dict[str, str]:
    """{piece id: look} of what the page shows of `drawn`'s part, if the page shows the same
    pieces (the same count), else {} (all drawn again)."""
    shown = looks.get(own, [])
    pieces = drawn.pieces()
    if len(shown) != len(pieces) + 1:
        return {}
    return {
        own: shown[0],
        **{piece.id: look for piece, look in zip(pieces, shown[1:], strict=True)},
    }


def part_changes(own: str, drawn, looks: dict, *, oob=True) -> str | None:
    """The pieces of `drawn` (the part `own`: "pool" or "seat-N") whose look differs from
    `looks` (`page_looks`), or None when the page does not show the part as it is drawn now
    (another look of it, or no looks at all): then it needs the whole part."""
    looks = _by_piece(own, drawn, looks)
    if looks.get(own) != drawn.look:
        return None
    return changed_pieces(drawn.pieces(), looks, oob)


def seat_changes(context: dict, seat, looks: dict, drawn=None, *, oob=True) -> str:
    """`seat`'s pieces whose look differs from `looks` (`page_looks`), or the whole seat when the
    page does not show it as it is drawn now (another seat's look, or no looks at all)."""
    drawn = drawn or pieces.seat_drawing(context, seat)
    changes = part_changes(f"seat-{seat.number}", drawn, looks, oob=oob)
    if changes is None:
        return _whole("seat", context, oob, seat=seat, drawn=drawn)
    return changes


def pool_changes(context: dict, looks: dict, drawn=None, *, oob=True) -> str:
    """The pool's pieces whose look differs from `looks` (`page_looks`), or the whole pool."""
    drawn = drawn or pieces.pool_drawing(context)
    changes = part_changes("pool", drawn, looks, oob=oob)
    if changes is None:
        return _whole("pool", context, oob, drawn=drawn)
    return changes


def status_change(status, looks: dict, *, oob=True) -> str:
    """The status piece (pieces.status_piece), or nothing when the page shows it already."""
    if looks.get(STATUS) == [status.look]:
        return ""
    return _out_of_band(status) if oob else status.html


def looks_of(drawn) -> dict[str, list[str]]:
    """The looks a page shows after drawing `drawn` (a seat's or the pool's drawing), as
    `page_looks` gives them."""
    own = "pool" if isinstance(drawn, pieces.PoolDrawing) else drawn.head.id[: -len("-head")]
    return {own: [drawn.look, *(piece.look for piece in drawn.pieces())]}


def changed_pieces(pieces, looks: dict[str, str], oob=True) -> str:
    """The pieces whose look differs from `looks`; marked to swap out of band (htmx) for an
    answer, as they are for a push (htmx's ws extension swaps each element of it by id)."""
    draw = _out_of_band if oob else str
    changed = (draw(piece) for piece in pieces if looks.get(piece.id) != piece.look)
    return mark_safe("".join(changed))  # pieces drawn by templates


def _out_of_band(piece) -> str:
    at = piece.html.index(f'id="{piece.id}"')
    return mark_safe(f'{piece.html[:at]}hx-swap-oob="true" {piece.html[at:]}')


def _whole(name: str, context: dict, oob: bool, **extra) -> str:
    return render_to_string(f"games/partials/{name}.html", {**context, **extra, "oob": oob})
