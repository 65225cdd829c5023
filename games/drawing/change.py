"""A version's change drawn for one viewer in pieces, before the looks of their page pick from it.

A push (games/drawing/updates.py `draw_change`) is drawn in two steps: what the change shows
its viewer, piece by piece with each piece's look (`ChangeDrawing`: the status, the pool's and
the boards' pieces, the heads, the log's news), then what of it their page lacks (`pick`, by
the looks the page shows: games/drawing/cache/looks.py). The first step needs the version's
view; the second only compares looks and joins markup.

So the first step can be taken where the move was made, for each player who was watching
(games/live/pushes.py `carrying`): that process holds the version already, draws it once, and
sends the drawings with the push (`pack`, `travelling`). The socket of the player's page only
picks from theirs (issue 36: drawing every player's push in daphne was most of its CPU). A drawing
that has travelled cannot draw a part whole (its context stayed behind): a page that needs one
(it shows another look of that part, or none) is drawn where the socket is, as before.

The pieces travel pickled, as the version itself does (games/drawing/cache/carried.py): a
space's or a column's markup is drawn on arrival only if the page lacks it (pieces.py
`LaterPiece` carries what it is drawn from, not its markup).
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable
from dataclasses import dataclass, replace

from games.drawing.cache import looks
from games.drawing.pieces import Piece, PoolDrawing, SeatDrawing

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Status:
    """The status: sent unless the page shows it already."""

    piece: Piece


@dataclass(frozen=True, slots=True)
class Part:
    """The pool or another player's board and tray (`id` "pool" or "seat-N"): the pieces whose
    look differs from the page's, or the whole part (`whole`, None once it has travelled) when
    the page does not show it as it is drawn."""

    id: str
    drawn: SeatDrawing | PoolDrawing
    whole: Callable[[], str] | None


@dataclass(frozen=True, slots=True)
class Head:
    """A seat whose head alone changed (`id` "seat-N"): its name line and the line under it,
    each unless the page shows it so already."""

    id: str
    head: Piece
    time: Piece


@dataclass(frozen=True, slots=True)
class Whole:
    """Markup sent whatever the page shows: the viewer's own board (`part`: its looks are
    unknown from then on: it is interactive, and its page may show a tile picked up), the log's
    news, a notice, the viewer's queued draft."""

    html: str
    part: str = ""


@dataclass(frozen=True)
class ChangeDrawing:
    """The change for one viewer, in the order of the push: `facts` say what it was drawn for
    (the language, the time zone, the colour-blind setting: a socket whose viewer differs draws
    its own)."""

    entries: tuple[Status | Part | Head | Whole, ...]
    facts: tuple = ()

    def pick(self, shown: dict[str, list[str]]) -> tuple[str, dict] | None:
        """The push for a page that shows `shown` (games/drawing/cache/looks.py `page_looks`),
        and the looks the page shows once it has it (None for a part whose looks are not
        known); None if the page needs a part whole that this drawing cannot draw here."""
        parts: list[str] = []
        now: dict[str, list[str] | None] = {}
        for entry in self.entries:
            if isinstance(entry, Status):
                parts.append(looks.status_change(entry.piece, shown, oob=False))
                now[looks.STATUS] = [entry.piece.look]
            elif isinstance(entry, Part):
                changes = looks.part_changes(entry.id, entry.drawn, shown, oob=False)
                if changes is None:
                    if entry.whole is None:
                        return None
                    changes = entry.whole()
                parts.append(changes)
                now.update(looks.looks_of(entry.drawn))
            elif isinstance(entry, Head):
                parts.append(_head_change(entry, shown, now))
            else:
                parts.append(entry.html)
                if entry.part:
                    now[entry.part] = None
        return looks.compact("".join(parts)), now

    def travelling(self) -> ChangeDrawing:
        """This drawing without what cannot leave the process (a part's whole drawing)."""
        entries = tuple(
            replace(entry, whole=None) if isinstance(entry, Part) else entry
            for entry in self.entries
        )
        return ChangeDrawing(entries, self.facts)


def _head_change(entry: Head, shown: dict[str, list[str]], now: dict) -> str:
    known = shown.get(entry.id)
    if known is None or len(known) < 3:
        return entry.head.html + entry.time.html
    # The head's two pieces come first in the seat's (pieces.SeatDrawing.pieces).
    pieces = ((entry.head, known[1]), (entry.time, known[2]))
    sent = [piece for piece, look in pieces if piece.look != look]
    if sent:
        now[entry.id] = [known[0], entry.head.look, entry.time.look, *known[3:]]
    return "".join(piece.html for piece in sent)


def pack(drawings: dict[int, ChangeDrawing]) -> bytes:
    """The drawings of one push, by player, as bytes for the channel layer (`unpack` takes them
    back): in one piece, so that the parts the players share (another player's board, the pool
    as those who do not draft see it) travel once."""
    travelling = {user_id: drawing.travelling() for user_id, drawing in drawings.items()}
    return pickle.dumps(travelling, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(blob: bytes) -> dict[int, ChangeDrawing]:
    """The drawings from `pack`, or none if this code cannot read them (another release)."""
    try:
        drawings = pickle.loads(blob)
    except Exception as error:
        logger.warning("live: cannot unpack a drawn push (%r); drawing it here", error)
        return {}
    return drawings if isinstance(drawings, dict) else {}
