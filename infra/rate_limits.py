"""The site's one rate limiter: how many times something may happen in a sliding window, counted
in the shared cache. Rates are written in one syntax, read by infra/rates.py (`240/m`,
`5/5m/key`). The per-player limits of the games (games/play/rate_limits.py), the failed log-ins
(accounts/lockout.py), the sign-ups and the API tokens made (accounts/) all count here.

Each counter keeps the times of its latest events: one more is allowed while fewer than `amount`
of them are younger than the period, and the wait is the time until the one that blocks it comes
of age. So a lockout ends exactly its period after the failure that caused it, and no burst fits
twice into two periods' edges, as fixed windows let it. A refused event is not counted: a client
that keeps knocking is let in once its wait is over.

On Redis (REDIS_URL) a counter is a sorted set of times, read and counted in one round trip (a
MULTI/EXEC through django-redis's public get_redis_connection): every move counts (issue 21);
a refusal costs a second. Any other cache (a bare `manage.py`, LocMem) keeps a list under a short
lock. If the cache cannot count, the event is allowed (logged): playing matters more than counting.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from django.core.cache import caches
from django.shortcuts import render
from django_redis import get_redis_connection
from django_redis.cache import RedisCache

from infra.rates import Rate, parse_rate, parse_rates

__all__ = [
    "Rate",
    "Usage",
    "clear",
    "hit",
    "parse_rate",
    "parse_rates",
    "peek",
    "record",
    "retry_after",
    "too_many",
    "wait",
    "wait_then_record",
]

logger = logging.getLogger(__name__)

LOCK_SECONDS = 5  # how long a counter's lock may be held by a process that died holding it
LOCK_WAIT = 1.0


@dataclass(frozen=True)
class Usage:
    """A counter as an event left it: `left` of `amount` events may still happen in the window
    of `period` seconds; the oldest counted comes of age in `reset` seconds. `wait` is 0 when one
    more is allowed now, else the seconds until it is; `allowed` says whether this event was."""

    amount: int
    period: float
    left: int
    reset: float
    wait: float
    allowed: bool = True


def hit(name: str, rate: Rate, key: str) -> Usage:
    """Count one event of `name` for `key` now if `rate` allows it; say how the counter stands."""
    return _counted(name, rate, key, count=True)


def peek(name: str, rate: Rate, key: str) -> Usage:
    """How the counter stands, counting nothing: `wait` says whether one more is allowed."""
    return _counted(name, rate, key, count=False)


def wait(name: str, rate: Rate, key: str) -> float:
    """Seconds until one more event is allowed under `rate` for `key`; 0 if it is now."""
    return peek(name, rate, key).wait


def record(name: str, rate: Rate, key: str) -> None:
    """Count one event that happened, allowed or not (a failed log-in, say)."""
    _counted(name, rate, key, count=True, always=True)


def wait_then_record(name: str, rates: list[Rate], key: str) -> float:
    """The wait before one more event under every rate for `key`, or 0 after counting it."""
    seconds = max([wait(name, rate, key) for rate in rates], default=0.0)
    if seconds <= 0:
        for rate in rates:
            record(name, rate, key)
    return seconds


def clear(name: str, rate: Rate, key: str) -> None:
    """Forget every event counted (a log-in that succeeded forgets the failures)."""
    try:
        caches["default"].delete(_cache_key(name, rate, key))
    except Exception:
        logger.warning("cannot clear the limit %s", name, exc_info=True)


def retry_after(seconds: float) -> str:
    """A wait as the Retry-After header says it: whole seconds, rounded up."""
    return str(max(1, math.ceil(seconds)))


def too_many(request, seconds: float, message: str, **context):
    """The answer past a limit: templates/429.html with the message (which says the wait, in
    infra.words.wait_words) and Retry-After."""
    response = render(request, "429.html", {"message": message, **context}, status=429)
    response["Retry-After"] = retry_after(seconds)
    return response


def _cache_key(name: str, rate: Rate, key: str) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"rate-limit:{name}:{rate}:{digest}"


def _counted(name: str, rate: Rate, key: str, *, count: bool, always: bool = False) -> Usage:
    now = time.time()
    try:
        backend = caches["default"]
        if isinstance(backend, RedisCache):
            return _in_redis(
                backend.make_key(_cache_key(name, rate, key)), rate, now, count, always
            )
        return _in_cache(backend, _cache_key(name, rate, key), rate, now, count, always)
    except Exception:
        logger.warning("rate limit %s not counted: the cache failed", name, exc_info=True)
        return Usage(rate.amount, rate.seconds, rate.amount, rate.seconds, 0.0)


def _usage(rate: Rate, times: list[float], now: float, allowed: bool) -> Usage:
    """The usage of a counter holding `times` (the young ones, oldest first)."""
    blocking = times[-rate.amount] if rate.amount and len(times) >= rate.amount else None
    return _usage_of(rate, len(times), times[0] if times else None, blocking, now, allowed)


def _usage_of(
    rate: Rate, count: int, oldest: float | None, blocking: float | None, now: float, allowed: bool
) -> Usage:
    """The usage of a counter holding `count` young times, the `oldest` of them first, and
    `blocking`, the amount-th youngest (the one that blocks the next), if there are that many."""
    left = max(0, rate.amount - count)
    reset = oldest + rate.seconds - now if oldest is not None else rate.seconds
    if left:
        wait = 0.0
    elif rate.amount == 0:  # "0/h": nothing, ever (a test's, or an operator closing a door)
        wait = rate.seconds
    else:
        wait = (blocking if blocking is not None else now) + rate.seconds - now
    return Usage(rate.amount, rate.seconds, left, max(0.0, reset), max(0.0, wait), allowed)


def _in_redis(full_key: str, rate: Rate, now: float, count: bool, always: bool) -> Usage:
    """The counter as a sorted set of times. The round trip reads its size and the three times
    the usage needs (the oldest, the amount-th and the (amount+1)-th youngest), never the times
    themselves: a counter near a large amount costs what a small one does (issue 36: a reply of
    241 times at 240/m was parsed on every move)."""
    connection = get_redis_connection("default")
    pipe = connection.pipeline(transaction=True)
    pipe.zremrangebyscore(full_key, "-inf", now - rate.seconds)
    member = f"{now:.6f}:{uuid.uuid4().hex[:8]}"
    if count:
        pipe.zadd(full_key, {member: now})
        pipe.pexpire(full_key, math.ceil(rate.seconds * 1000) + 1000)
    pipe.zcard(full_key)
    amount = rate.amount
    for index in (0, -(amount + 1), -amount if amount else 0):
        pipe.zrange(full_key, index, index, withscores=True)
    *_, size, oldest, before_blocking, blocking = pipe.execute()

    def at(index: int) -> float | None:
        """The time at `index` (oldest first) of the `size` counted, if it was read."""
        for found, at_index in ((oldest, 0), (before_blocking, size - amount - 1)):
            if index == at_index and found:
                return found[0][1]
        if amount and index == size - amount and blocking:
            return blocking[0][1]
        return None

    if not count:  # as if it held its amount + 1 youngest: enough to say the wait
        kept = min(size, amount + 1)
        allowed = kept < amount
        return _usage_of(rate, kept, at(size - kept), at(size - amount), now, allowed)
    allowed = size <= amount
    if not (allowed or always):
        # Past the limit: the event is not counted, so the wait it says holds. Without it the
        # counter holds at least `amount` times; the amount-th youngest is the one before.
        connection.zrem(full_key, member)
        if not amount:
            return _usage_of(rate, size - 1, at(0) if size > 1 else None, None, now, allowed)
        first = at(size - amount - 1)
        return _usage_of(rate, amount, first, first, now, allowed)
    kept = min(size, amount) if amount else size
    first = at(size - kept)
    return _usage_of(rate, kept, first, first if kept == amount else None, now, allowed)


def _in_cache(backend, cache_key: str, rate: Rate, now: float, count: bool, always: bool) -> Usage:
    with _locked(backend, cache_key) if count else nullcontext():
        # Newest first, at most `amount` kept: the older ones can block nothing.
        history = [
            t
            for t in backend.get(cache_key) or []
            if isinstance(t, float | int) and t > now - rate.seconds
        ]
        allowed = len(history) < rate.amount
        if count and (allowed or always):
            history = [now, *history][: rate.amount]
            backend.set(cache_key, history, timeout=math.ceil(rate.seconds) + 1)
    return _usage(rate, sorted(history), now, allowed)


@contextmanager
def _locked(backend, cache_key: str) -> Iterator[None]:
    """Two processes counting at once would each write their own list and lose the other's
    event: a short lock around the read and write (cache.add is atomic). If it cannot be had
    within a second, count anyway: one lost event at worst."""
    lock = f"{cache_key}:lock"
    deadline = time.monotonic() + LOCK_WAIT
    acquired = backend.add(lock, 1, timeout=LOCK_SECONDS)
    while not acquired and time.monotonic() < deadline:
        time.sleep(0.01)
        acquired = backend.add(lock, 1, timeout=LOCK_SECONDS)
    try:
        yield
    finally:
        if acquired:
            backend.delete(lock)
