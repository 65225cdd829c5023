"""What one accepted version of a game touched, as far as anyone's page is concerned.

Worked out inside the transaction that made the change (games/play/actions.py), where it is known
exactly, and handed to what draws it: the mover's answer (games/play/views.py) and the pushes to
every other open page (games/live/drawing.py).
"""

import re
from dataclasses import dataclass

# A page names itself with a random id (games/static/games/live.js) on its socket and on its
# moves; the socket of the page that made a move skips that move's push, since the move's own
# answer already brought the page there.
PAGE_ID = re.compile(r"[A-Za-z0-9]{8,32}")


@dataclass(frozen=True)
class Change:
    game_id: int
    version: int
    seats: tuple[int, ...]  # boards or trays to redraw (seat numbers)
    pool: bool  # the pool or the turn changed: the pool, and everyone's status
    ended: bool  # the game is over: every page redraws the whole game with the results
    kind: str  # the event's kind, e.g. "place"
    # Seats whose head alone changed (the turn's marker, a clock), besides `seats`: a page
    # redraws just that, and may keep a tile picked up on the board below it.
    heads: tuple[int, ...] = ()
    answered_page: str = ""  # the page that made the move and got it in the answer
    # (user id, whether the game now waits for their move) of each player for whom it began or
    # stopped waiting: their count of waiting games (the nav badge) changed, nobody else's did.
    waiting_changed: tuple[tuple[int, bool], ...] = ()
    # The version adds to the move log (a draft, a forced take, a finish...): its pages redraw it.
    logged: bool = False
    # The seats the server did something to (a forced take, a timeout, a deadline): their
    # players' pages show a notice of it.
    concerns: tuple[int, ...] = ()

    def event(self) -> dict:
        """The ``game.changed`` event of the channel layer (games/live/consumers.py)."""
        return {
            "type": "game.changed",
            "game": self.game_id,
            "version": self.version,
            "seats": list(self.seats),
            "heads": list(self.heads),
            "pool": self.pool,
            "ended": self.ended,
            "answered": self.answered_page,
            "logged": self.logged,
            "concerns": list(self.concerns),
        }


def page_id(value: object) -> str:
    """Return `value` if it is a well-formed page id, else ""."""
    if isinstance(value, str) and PAGE_ID.fullmatch(value):
        return value
    return ""


@dataclass(frozen=True)
class LobbyChange:
    """A change to a table that waited for players: a seat taken or given up, the start, the
    cancellation. Every open waiting-room page redraws its seats (games/live/drawing.py
    `draw_lobby`); the start turns those pages into the game page, the cancellation says so."""

    game_id: int
    version: int
    kind: str  # "joined", "left", "declined", "started" or "cancelled"
    seats: tuple[tuple[int, int, str], ...]  # (number, user id, username), as the change left them

    def event(self) -> dict:
        """The ``game.lobby_changed`` event of the channel layer (games/live/consumers.py)."""
        return {
            "type": "game.lobby_changed",
            "game": self.game_id,
            "version": self.version,
            "kind": self.kind,
            "seats": [list(seat) for seat in self.seats],
        }
