"""Who is looking at a game right now.

Kept in the shared cache (Redis in production), so every daphne process gives the same answer.
Each open game page is one websocket connection (games/consumers.py); it registers on connect,
refreshes with every heartbeat of the page, and leaves on disconnect. An entry that stops
refreshing (a crashed process, a lost network) expires by itself after TTL seconds.

Presence is a hint, never a reason to fail: when the cache cannot be reached, every function
here logs and answers "nobody is watching", so pages and moves work without it.
"""

import logging
import time

from django.core.cache import cache

TTL = 60

logger = logging.getLogger(__name__)


def _key(game_id: int, user_id: int) -> str:
    return f"presence:{game_id}:{user_id}"


def _live(connections: dict | None, now: float) -> dict:
    return {name: expiry for name, expiry in (connections or {}).items() if expiry > now}


def arrive(game_id: int, user_id: int, connection: str) -> bool:
    """Record (or refresh) one open connection of `user_id` to the game.

    Return whether the user was not watching the game before (their dot turns on).
    """
    now = time.time()
    key = _key(game_id, user_id)
    try:
        connections = _live(cache.get(key), now)
        was_watching = bool(connections)
        connections[connection] = now + TTL
        cache.set(key, connections, TTL)
    except Exception as error:
        logger.warning("presence: cannot record game %s user %s: %s", game_id, user_id, error)
        return False
    return not was_watching


def depart(game_id: int, user_id: int, connection: str) -> bool:
    """Forget one connection; return whether the user now has no connection to the game left."""
    now = time.time()
    key = _key(game_id, user_id)
    try:
        connections = _live(cache.get(key), now)
        was_watching = bool(connections)
        connections.pop(connection, None)
        if connections:
            cache.set(key, connections, TTL)
        else:
            cache.delete(key)
    except Exception as error:
        logger.warning("presence: cannot forget game %s user %s: %s", game_id, user_id, error)
        return False
    return was_watching and not connections


def is_watching(game_id: int, user_id: int) -> bool:
    """Return whether the user has the game open right now (used to hold back emails)."""
    try:
        return bool(_live(cache.get(_key(game_id, user_id)), time.time()))
    except Exception as error:
        logger.warning("presence: cannot read game %s user %s: %s", game_id, user_id, error)
        return False


def watching(game_id: int, user_ids) -> set[int]:
    """Return which of `user_ids` have the game open now (one cache round trip)."""
    keys = {_key(game_id, user_id): user_id for user_id in user_ids}
    if not keys:
        return set()
    now = time.time()
    try:
        found = cache.get_many(list(keys))
    except Exception as error:
        logger.warning("presence: cannot read game %s: %s", game_id, error)
        return set()
    return {keys[key] for key, connections in found.items() if _live(connections, now)}
