"""Versions and fragments: a game's version drawn for no one, once per process, and the markup
drawn from it for each kind of viewer, kept for the next viewer who sees the very same.

A version's view comes from where it is cheapest: the move that made it in this process left
its game and seats here (`keep_made`); another process's move carried them in its push
(`keep_carried`, games/drawing/cache/carried.py); else it is read (`snapshot`). A fragment is
keyed by everything it depends on (the caller's key) and the active language (`fragment`).
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils import translation

from games import move_log
from games.drawing import view as views
from games.drawing.cache import carried
from games.models import Event, Game, Seat
from games.state_store import read_game
from infra.lru import LRU, MIB, text_size

logger = logging.getLogger(__name__)

# One drawn-for-no-one view per (game, version), and the fragments drawn from it. A push only
# needs them for the moment its viewers draw it, so small bounds are plenty.
_snapshots = LRU(256)


_fragments = LRU(1024, max_bytes=8 * MIB, weigh=text_size)


# Whether this process holds open pages' sockets (games/live/consumers.py says so when one
# connects): a web process that only answers moves (gunicorn) or a worker keeps no versions.
_holds_sockets = False


def holds_sockets() -> None:
    global _holds_sockets
    _holds_sockets = True


def keep_made(
    version: int,
    game: Game,
    seats: Sequence[Seat],
    events: Sequence[Event] = (),
    online: frozenset[int] | None = None,
) -> None:
    """Keep the game and seats as the move that made `version` left them, for the pushes this
    process's sockets draw next (only where there are sockets)."""
    if _holds_sockets:
        _snapshots.put((game.pk, version), _Made(game, list(seats), list(events), online))


def keep_carried(event: dict) -> None:
    """Keep the version a ``game.changed`` event carries (games/drawing/cache/carried.py), once per
    process, whether or not a page here draws it: the move log of the next version drawn here
    continues from its events."""
    global _last_carried
    key = (event["game"], event["version"])
    if key == _last_carried:  # every socket of the game here gets the same event in a row
        return
    blob = event.get("made")
    if not blob:
        return
    if key not in _snapshots:
        found = carried.unpack(blob)
        if found is None:
            return
        game, seats, events, online = found
        _snapshots.put(key, _Made(game, seats, events, online))
        try:
            move_log.keep_events(game, seats, events)
        except Exception:  # on the consumer's loop, for every socket: never let it end one
            logger.exception("live: cannot extend the log of game %s with version %s", *key)
    _last_carried = key


# The version `keep_carried` kept last: the sockets of one game take its event one after the
# other, and each asked the bounded map (behind its lock) again.
_last_carried: tuple[int, int] | None = None


@dataclass(frozen=True)
class _Made:
    """A version this process has just made (`game_changed`): its game and seats as the move's
    transaction left them, kept in `_snapshots` until a push needs its view."""

    game: Game
    seats: list[Seat]
    events: list  # the new events of the transaction, for the move log
    online: frozenset[int] | None = None  # who was watching, if the move read it


def keep_seen(view: views.GameView) -> None:
    """Keep a version's view drawn for no one where it was drawn (games/drawing/updates.py
    `draw_ahead`, in the process that made the version), for what draws it next there: the
    move's own answer (`seen`), and this process's pushes where it holds sockets (`snapshot`)."""
    key = (view.game.pk, view.game.version)
    _seen.put(key, view)
    if _holds_sockets:
        _snapshots.put(key, view)


def seen(game_id: int, version: int) -> views.GameView | None:
    """The view of `version` drawn for no one here by `keep_seen`'s caller, if it is still kept."""
    return _seen.get((game_id, version))


# The views `keep_seen` keeps for the moves' answers, each read once, right after: a process
# that answers moves and holds no sockets (gunicorn) keeps no more of them.
_seen = LRU(8)


def held(game_id: int, version: int) -> bool:
    """Whether this process holds `version` of the game such that its view needs no query: made
    or carried here with who was watching (`keep_made`, `keep_carried`) and the move log as far
    as it, or viewed already."""
    found = _snapshots.get((game_id, version))
    if isinstance(found, _Made):
        return found.online is not None and move_log.holds(found.game, found.events)
    return isinstance(found, views.GameView)


def snapshot(game_id: int, version: int) -> views.GameView:
    """The game as nobody in particular sees it, at `version` or later."""

    def load() -> views.GameView:
        game, seats = read_game(game_id)
        return views.game_view(game, None, seats=seats)

    view = _snapshots.get_or_make((game_id, version), load)
    if isinstance(view, _Made):  # no need to read it: the move that made it left it here
        made = view
        view = views.game_view(
            made.game, None, seats=made.seats, known_events=made.events, online=made.online
        )
        _snapshots.put((game_id, version), view)
    return view


def fragment(key: tuple, draw: Callable[[], str]) -> str:
    """`draw()`, kept for the next viewer who would see the very same markup: in the same
    language (each socket draws in its viewer's, games/live/consumers.py)."""
    return _fragments.get_or_make((*key, translation.get_language()), draw)


def kept(key: tuple, language: str | None = None) -> object | None:
    """What `fragment` keeps under `key` in `language` (by default the active one), or None: a
    look without drawing, so that a socket on its event loop may use what is kept without a
    thread."""
    return _fragments.get((*key, language or translation.get_language()))


def pack(
    game: Game,
    seats: Sequence[Seat],
    events: Sequence[Event] = (),
    online: frozenset[int] | None = None,
) -> bytes:
    """The version a move just made, as bytes for its push to the other processes
    (`keep_carried` takes it there)."""
    return carried.pack(game, seats, events, online)


def forget() -> None:
    """Forget every version and fragment kept (a test starts afresh)."""
    global _last_carried
    _snapshots.clear()
    _seen.clear()
    _fragments.clear()
    _last_carried = None
