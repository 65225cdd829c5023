"""Who is looking at a game right now.

Kept in the shared cache (Redis in production), so every daphne process gives the same answer.
Each open game page is one websocket connection; it registers on connect, refreshes with every
heartbeat, and leaves on disconnect. An entry that stops refreshing (a crashed process, a lost
network) expires by itself after TTL seconds.
"""

import time

from django.core.cache import cache

TTL = 60


def _key(game_id: int, user_id: int) -> str:
    return f"presence:{game_id}:{user_id}"


def _live(connections: dict | None, now: float) -> dict:
    return {name: expiry for name, expiry in (connections or {}).items() if expiry > now}


def arrive(game_id: int, user_id: int, connection: str) -> None:
    """Record (or refresh) one open connection of `user_id` to the game."""
    now = time.time()
    key = _key(game_id, user_id)
    connections = _live(cache.get(key), now)
    connections[connection] = now + TTL
    cache.set(key, connections, TTL)


def depart(game_id: int, user_id: int, connection: str) -> None:
    now = time.time()
    key = _key(game_id, user_id)
    connections = _live(cache.get(key), now)
    connections.pop(connection, None)
    if connections:
        cache.set(key, connections, TTL)
    else:
        cache.delete(key)


def is_watching(game_id: int, user_id: int) -> bool:
    """Return whether the user has the game open right now (used to hold back emails)."""
    return bool(_live(cache.get(_key(game_id, user_id)), time.time()))


def watching(game_id: int, user_ids) -> set[int]:
    """Return which of `user_ids` have the game open now (one cache round trip)."""
    keys = {_key(game_id, user_id): user_id for user_id in user_ids}
    now = time.time()
    found = cache.get_many(list(keys))
    return {keys[key] for key, connections in found.items() if _live(connections, now)}
