"""Who is looking at a game right now.

Kept in the shared cache (Redis in production), so every daphne process gives the same answer.
Each open game page is one websocket connection (games/live/consumers.py); it registers on connect,
refreshes with every heartbeat of the page, and leaves on disconnect. An entry that stops
refreshing (a crashed process, a lost network) expires by itself after TTL seconds.

On Redis, a (game, player) pair is one sorted set: each open connection with the time it expires
as its score. Every change is one atomic MULTI/EXEC, so sockets of one player that arrive or leave
at the same moment on different processes never overwrite each other's entries (a read, change
and write back would). Without Redis (a bare `manage.py`, one process) the same entries live in
the local cache, changed under a lock.

Presence is a hint, never a reason to fail: when the cache cannot be reached, every function
here logs and answers "nobody is watching", so pages and moves work without it.
"""

import logging
import threading
import time

from django.core.cache import caches
from django_redis import get_redis_connection
from django_redis.cache import RedisCache

TTL = 60

logger = logging.getLogger(__name__)

_local_lock = threading.Lock()


def _key(game_id: int, user_id: int) -> str:
    return f"presence-set:{game_id}:{user_id}"


def _redis():
    """Return (backend, client) when the cache is Redis, else (backend, None): django-redis's
    own redis-py client, on its per-process connection pool."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend, get_redis_connection("default")
    return backend, None


def _live(connections: dict | None, now: float) -> dict:
    return {name: expiry for name, expiry in (connections or {}).items() if expiry > now}


def arrive(game_id: int, user_id: int, connection: str) -> bool:
    """Record (or refresh) one open connection of `user_id` to the game.

    Return whether the user was not watching the game before (their dot turns on).
    """
    now = time.time()
    try:
        backend, client = _redis()
        if client is not None:
            key = backend.make_key(_key(game_id, user_id))
            pipe = client.pipeline(transaction=True)
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zcard(key)
            pipe.zadd(key, {connection: now + TTL})
            pipe.expire(key, TTL)
            _, before, _, _ = pipe.execute()
            return before == 0
        with _local_lock:
            connections = _live(backend.get(_key(game_id, user_id)), now)
            was_watching = bool(connections)
            connections[connection] = now + TTL
            backend.set(_key(game_id, user_id), connections, TTL)
    except Exception as error:
        logger.warning("presence: cannot record game %s user %s: %s", game_id, user_id, error)
        return False
    return not was_watching


def depart(game_id: int, user_id: int, connection: str) -> bool:
    """Forget one connection; return whether the user now has no connection to the game left."""
    now = time.time()
    try:
        backend, client = _redis()
        if client is not None:
            key = backend.make_key(_key(game_id, user_id))
            pipe = client.pipeline(transaction=True)
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zrem(key, connection)
            pipe.zcard(key)
            _, removed, after = pipe.execute()
            return bool(removed) and after == 0
        with _local_lock:
            connections = _live(backend.get(_key(game_id, user_id)), now)
            was_watching = bool(connections)
            connections.pop(connection, None)
            if connections:
                backend.set(_key(game_id, user_id), connections, TTL)
            else:
                backend.delete(_key(game_id, user_id))
    except Exception as error:
        logger.warning("presence: cannot forget game %s user %s: %s", game_id, user_id, error)
        return False
    return was_watching and not connections


def is_watching(game_id: int, user_id: int) -> bool:
    """Return whether the user has the game open right now (used to hold back emails)."""
    return user_id in watching(game_id, [user_id])


def watching(game_id: int, user_ids) -> set[int]:
    """Return which of `user_ids` have the game open now (one cache round trip)."""
    user_ids = list(user_ids)
    if not user_ids:
        return set()
    now = time.time()
    try:
        backend, client = _redis()
        if client is not None:
            pipe = client.pipeline(transaction=False)
            for user_id in user_ids:
                key = backend.make_key(_key(game_id, user_id))
                pipe.zcount(key, f"({now}", "+inf")
            counts = pipe.execute()
            return {user_id for user_id, count in zip(user_ids, counts, strict=True) if count}
        keys = {_key(game_id, user_id): user_id for user_id in user_ids}
        found = backend.get_many(list(keys))
    except Exception as error:
        logger.warning("presence: cannot read game %s: %s", game_id, error)
        return set()
    return {keys[key] for key, connections in found.items() if _live(connections, now)}
