"""A version as the move that made it left it, carried in its push to the other processes.

Every process holding a game's sockets draws each new version for its viewers
(games/drawing/updates.py). Reading that version back costs it a query of the game and its seats, a
query of the new events for the move log and a presence round trip: about a third of a daphne
process's CPU per move under load (docs/performance.md). The process that made the move has all
of it in hand, so it packs it into the ``game.changed`` event (`pack`) and each receiving process
keeps it once (`unpack`, games/drawing/cache/versions.py `keep_carried`) instead of reading.

The rows travel pickled, as Django's own Redis cache stores its values: the channel layer's
Redis is as trusted as the cache's. The players' password hashes are left behind. A process
that cannot unpack a version (another release of the code during a deploy) reads it instead.
"""

import copy
import logging
import pickle
from collections.abc import Sequence

from games.models import Event, Game, Seat

logger = logging.getLogger(__name__)


def pack(
    game: Game,
    seats: Sequence[Seat],
    events: Sequence[Event],
    online: frozenset[int] | None = None,
) -> bytes:
    """The game, its seats (with their users), the change's new events and who was watching
    (None: not read), as bytes for the channel layer."""
    game = _travelling(game)
    seats = [_travelling(seat, game=game) for seat in seats]
    events = [_travelling(event, game=game) for event in events]
    online = sorted(online) if online is not None else None
    return pickle.dumps((game, seats, events, online), protocol=pickle.HIGHEST_PROTOCOL)


def unpack(
    blob: bytes,
) -> tuple[Game, list[Seat], list[Event], frozenset[int] | None] | None:
    """(game, seats, events, online) from `pack`, or None if this code cannot read it."""
    try:
        game, seats, events, online = pickle.loads(blob)
    except Exception as error:
        logger.warning("live: cannot unpack a carried version (%r); reading it", error)
        return None
    return game, seats, events, frozenset(online) if online is not None else None


def _travelling(instance, **related):
    """A copy of a model instance to pickle: its related users without their password hash,
    and `related` under those names (the one game every row points at, pickled once)."""
    instance = copy.copy(instance)
    instance._state = copy.copy(instance._state)
    cache = {**instance._state.fields_cache, **related}
    for name, value in cache.items():
        if "password" in getattr(value, "__dict__", {}):
            value = copy.copy(value)
            value._state = copy.copy(value._state)
            del value.__dict__["password"]  # deferred: read only if something asks for it
            cache[name] = value
    instance._state.fields_cache = cache
    return instance
