"""Django's Redis cache, with one redis-py client per connection pool instead of one per call.

Django's RedisCacheClient builds a new `redis.Redis` for every cache operation, and building one
fills a table of some two hundred response callbacks: in a profile of the web processes under
the load benchmark that was a twentieth of a move's CPU (a move reads the session, counts its
rate limit and reads presence). A client holds no connection of its own, only its pool, and is
safe to share between threads, so one per pool serves every call of the process.
"""

import weakref

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class SharedClientCacheClient(RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = _clients.get(pool)
        if client is None:
            client = _clients.setdefault(pool, self._client(connection_pool=pool))
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = SharedClientCacheClient
