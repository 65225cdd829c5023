"""The live events, as data: each a plain dict with its "type", sent to a group of open pages.

A state change (games/play/) records each as `effects.push(group, event)` inside its
transaction; games/effects.py sends them all after the commit, in order; the socket of each
open page (games/live/consumers.py) handles an event by its type (channels names the handler:
"game.changed" is `game_changed`) and draws it for its own viewer (games/drawing/updates.py).
A new kind of live event is its constructor here, its handler there, and its drawing.

The events, and who hears them:

- ``game.changed`` (`Change.event`, the game's group): a new version, and what it touched;
- ``game.lobby_changed`` (`LobbyChange.event`, the game's group): a waiting table's seats;
- ``user.notify`` (`badge_event`, `notice_event`, a player's group): their nav badge, a notice;
- ``queue.changed`` (`queue_event`, a player's group): their queued draft of a game;
- ``game.chat`` (`chat_event`, the game's group): a message of the table talk;
- ``game.rematch`` (`rematch_event`, the ended game's group): its rematch offered or called off.

`Change` itself is worked out inside the transaction that made the version, where it is known
exactly, and handed to what draws it: the mover's answer (games/play/views.py) and the pushes to
every other open page.
"""

import re
from dataclasses import dataclass

# Notices (games/notices/notice.py) that come without a move, so they carry the badge themselves.
LOBBY_NOTICES = frozenset({"invitation", "game_started"})


def game_group(game_id: int) -> str:
    """The group of every open page of a game (and of the API streams that follow it)."""
    return f"game-{game_id}"


def user_group(user_id: int) -> str:
    """The group of every open page of a player."""
    return f"user-{user_id}"


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
    mover: int | None = None  # that page's player (None: no page made it)
    # (user id, whether the game now waits for their move) of each player for whom it began or
    # stopped waiting: their count of waiting games (the nav badge) changed, nobody else's did.
    waiting_changed: tuple[tuple[int, bool], ...] = ()
    # The version adds to the move log (a draft, a forced take, a finish...): its pages redraw it.
    logged: bool = False
    # The seats the server did something to (a forced take, a timeout, a deadline): their
    # players' pages show a notice of it.
    concerns: tuple[int, ...] = ()

    def pushes(self) -> list[tuple[str, dict]]:
        """The version's pushes: the ``game.changed`` event to the game's pages, and a badge
        event to each player whose count of waiting games it changed."""
        pushes = [(game_group(self.game_id), self.event())]
        for user_id, waiting in self.waiting_changed:
            badge = badge_event(self.game_id, version=self.version, waiting=waiting)
            pushes.append((user_group(user_id), badge))
        return pushes

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
            "mover": self.mover,
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
    cancellation. Every open waiting-room page redraws its seats (games/drawing/updates.py
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


def badge_event(game_id: int, *, version: int | None = None, waiting: bool | None = None) -> dict:
    """A ``user.notify`` event that asks the player's open pages to redraw the badge: with the
    game's `version` and whether it now `waiting`s for the player, each page updates its own
    count of this game (games/drawing/badge.py `Badge`) without a query; without them, it
    counts again."""
    event: dict = {"type": "user.notify", "game": game_id, "badge": True, "notice": ""}
    if version is not None and waiting is not None:
        event["version"], event["waiting"] = version, waiting
    return event


def notice_event(game_id: int, kind: str) -> dict:
    """A ``user.notify`` event with a notice of `kind` about the game (games/notices/notice.py:
    your turn, invitation, game over...), drawn by each of the recipient's open pages but the
    game's own."""
    return {"type": "user.notify", "game": game_id, "badge": kind in LOBBY_NOTICES, "notice": kind}


def queue_event(game_id: int, answered_page: str = "") -> dict:
    """A ``queue.changed`` event, to its player's own group: redraw their Drafting-ahead panel
    of the game on their other pages (the page that made the change, `answered_page`, drew it
    in its answer). Nobody else's page hears of it."""
    return {"type": "queue.changed", "game": game_id, "answered": answered_page}


def chat_event(game_id: int, message: dict, *, spectators: bool) -> dict:
    """A ``game.chat`` event: a message of the table talk written or deleted
    (games/chat.py `message_event`); each page draws it if its viewer may read the talk
    (`spectators`: people watching may)."""
    return {"type": "game.chat", "game": game_id, "spectators": spectators, "message": message}


def rematch_event(game_id: int) -> dict:
    """A ``game.rematch`` event: the rematch of the ended game was offered or called off; its
    pages redraw the offer for their viewers."""
    return {"type": "game.rematch", "game": game_id}
