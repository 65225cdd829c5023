"""Sessions kept in the database and read through the cache (Redis), that still load without it.

Django's cached_db store falls back to the database when it cannot read the cache, but then
writes the session it read into the cache, and a failing write fails the request: with Redis
down, every signed-in request (every move) answered 500. This store reads from the database
alone when the cached read fails, as the rest of the site goes on without Redis
(tests/faults/test_redis_restarted.py). Writes (log in, log out) still fail while Redis is down:
a log-out that could not remove the cached session must not look as if it had.
"""

import logging

from django.contrib.sessions.backends import cached_db, db

logger = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    def load(self):
        try:
            return super().load()
        except Exception as error:
            logger.warning("sessions: cache unavailable (%s); read from the database", error)
            return db.SessionStore.load(self)

    async def aload(self):
        try:
            return await super().aload()
        except Exception as error:
            logger.warning("sessions: cache unavailable (%s); read from the database", error)
            return await db.SessionStore.aload(self)
