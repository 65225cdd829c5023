"""One Redis connection pool per process for Django's cache.

Django's RedisCache keeps its pool on the cache object, and under ASGI each request's sync code
runs in a thread of its own, with cache objects of its own: every request would open (and
handshake) a new Redis connection. Handing out one pool per URL and process keeps the
connections open across requests; redis-py's pool is thread-safe and starts afresh after a fork
(Celery's prefork children).
"""

import threading

from redis import ConnectionPool


class SharedConnectionPool(ConnectionPool):
    _pools: dict = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url, **kwargs):
        key = (url, tuple(sorted((name, repr(value)) for name, value in kwargs.items())))
        with cls._lock:
            pool = cls._pools.get(key)
            if pool is None:
                pool = cls._pools[key] = super().from_url(url, **kwargs)
        return pool
