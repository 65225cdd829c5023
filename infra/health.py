"""Health checks of the three kinds of process: web, worker and beat.

- Web: ``/health/`` (microchip_site/views.py) answers 200 when its process can query the
  database, 503 when it cannot. It also reports whether Redis answers, but Redis down does not
  fail it: moves and pages work over HTTP without Redis (only the live layer and the timed work
  stop), and failing every web process at once would turn a degraded site into no site.
- Worker: ``manage.py health --worker`` pings the Celery workers through the broker
  (``celery inspect ping``) and fails when none answers.
- Beat: each run of the sweep (games.tasks.sweep) stamps its time in the shared cache;
  ``manage.py health --beat`` fails when the last stamp is older than 3 sweep intervals. It
  proves the whole clock works: beat sent the sweep and a worker ran it.
"""

import functools
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection

logger = logging.getLogger(__name__)

SWEEP_STAMP_KEY = "health:last-sweep"
# The beat check fails when the last sweep ran longer ago than this many sweep intervals.
SWEEP_INTERVALS_ALLOWED = 3


def database_ok() -> bool:
    """Return whether this process can run a query on the database."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        logger.warning("health: the database does not answer: %s", error)
        return False
    return True


@functools.lru_cache(maxsize=4)
def _redis_client(url: str):
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)


def redis_ok() -> bool | None:
    """Return whether Redis answers a PING within a second (None: no REDIS_URL configured)."""
    if not settings.REDIS_URL:
        return None
    try:
        return bool(_redis_client(settings.REDIS_URL).ping())
    except Exception as error:
        logger.warning("health: Redis does not answer: %s", error)
        return False


def record_sweep(now: float | None = None) -> None:
    """Stamp the time of a finished sweep (never raises: the sweep's work is done)."""
    try:
        cache.set(SWEEP_STAMP_KEY, time.time() if now is None else now, None)
    except Exception as error:
        logger.warning("health: cannot record the sweep: %s", error)


def last_sweep() -> float | None:
    """Return when the last sweep finished (seconds since the epoch), or None."""
    value = cache.get(SWEEP_STAMP_KEY)
    return float(value) if value is not None else None


def sweep_max_age() -> float:
    return SWEEP_INTERVALS_ALLOWED * float(settings.GAMES_SWEEP_SECONDS)


def workers_by_queue(app, timeout: float = 2.0) -> dict[str, list[str]]:
    """Return, for each queue, the names of the workers of the Celery `app` that answered within
    `timeout` seconds and consume from it (a worker may serve several queues)."""
    replies = app.control.inspect(timeout=timeout).active_queues() or {}
    serving: dict[str, list[str]] = {}
    for name, queues in sorted(replies.items()):
        for queue in queues or []:
            serving.setdefault(queue["name"], []).append(name)
    return serving
