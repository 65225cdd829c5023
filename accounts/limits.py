"""Sliding-window counts in the shared cache that can say how long until the next is allowed.

The failed log-ins (accounts/lockout.py) and the sign-ups (accounts/views.py) are counted here
rather than by allauth's own limits, whose counters are private and whose answer (a 429 page
with nothing in it) cannot say how long to wait. A rate is written as allauth's are, `5/5m`
(an amount per `s`, `m`, `h`, `d`, optionally with a number before the unit), with what it
counts by after a slash: `/ip` (the client's address) or `/key` (an account); several are joined
by commas.

Each counter keeps the times of its latest `amount` events, newest first, so an event is allowed
while fewer than `amount` of them are younger than the period, and the wait is the time until the
oldest of them comes of age. With Redis (REDIS_URL) the counts are shared by every process.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.core.cache import cache
from django.shortcuts import render

logger = logging.getLogger(__name__)

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
ONE_RATE = r"(\d+)/(\d+(?:\.\d+)?)?([smhd])(?:/(ip|user|key))?"
LOCK_SECONDS = 5  # how long a counter's lock may be held by a process that died holding it
LOCK_WAIT = 1.0


@dataclass(frozen=True)
class Rate:
    amount: int
    seconds: float
    per: str = "ip"

    def __str__(self) -> str:
        return f"{self.amount}/{self.seconds:g}s/{self.per}"


def parse_rates(text: str) -> list[Rate]:
    """`10/m/ip,5/5m/key` as rates; ValueError for anything else."""
    rates = []
    for part in filter(None, text.replace(" ", "").split(",")):
        found = re.fullmatch(ONE_RATE, part)
        if not found:
            raise ValueError(f"{part!r} is not a rate like 5/5m/key")
        amount, number, unit, per = found.groups()
        seconds = float(number or 1) * UNIT_SECONDS[unit]
        rates.append(Rate(int(amount), seconds, per or "ip"))
    return rates


def _cache_key(name: str, rate: Rate, key: str) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"limits:{name}:{rate}:{digest}"


def _recent(history, rate: Rate, now: float) -> list[float]:
    return [t for t in history or [] if isinstance(t, float | int) and t > now - rate.seconds]


def wait(name: str, rate: Rate, key: str) -> float:
    """Seconds until one more event is allowed under `rate` for `key`; 0 if it is now.
    If the cache cannot be read, 0 (logged): the site goes on without it, as the
    per-player limits do."""
    now = time.time()
    try:
        history = _recent(cache.get(_cache_key(name, rate, key)), rate, now)
    except Exception:
        logger.warning("cannot read the limit %s", name, exc_info=True)
        return 0.0
    if len(history) < rate.amount:
        return 0.0
    return history[rate.amount - 1] + rate.seconds - now


def record(name: str, rate: Rate, key: str) -> None:
    """Count one event now."""
    cache_key = _cache_key(name, rate, key)
    try:
        with _locked(cache_key):
            now = time.time()
            history = _recent(cache.get(cache_key), rate, now)
            history = [now, *history][: rate.amount]
            cache.set(cache_key, history, timeout=int(rate.seconds) + 1)
    except Exception:
        logger.warning("cannot count the limit %s", name, exc_info=True)


def clear(name: str, rate: Rate, key: str) -> None:
    try:
        cache.delete(_cache_key(name, rate, key))
    except Exception:
        logger.warning("cannot clear the limit %s", name, exc_info=True)


def wait_then_record(name: str, rates: list[Rate], key: str) -> float:
    """The wait before one more event under every rate for `key`, or 0 after counting it."""
    seconds = max([wait(name, rate, key) for rate in rates], default=0.0)
    if seconds <= 0:
        for rate in rates:
            record(name, rate, key)
    return seconds


def too_many(request, seconds: float, message: str, **context):
    """The answer past a limit: templates/429.html with the message (which says the wait, in
    infra.words.wait_words) and Retry-After."""
    response = render(request, "429.html", {"message": message, **context}, status=429)
    response["Retry-After"] = str(math.ceil(seconds))
    return response


@contextmanager
def _locked(cache_key: str) -> Iterator[None]:
    """Two processes counting at once would each write their own list and lose the other's
    event: a short lock around the read and write (cache.add is atomic in Redis). If it cannot
    be had within a second, count anyway: one lost event at worst."""
    lock = f"{cache_key}:lock"
    deadline = time.monotonic() + LOCK_WAIT
    acquired = cache.add(lock, 1, timeout=LOCK_SECONDS)
    while not acquired and time.monotonic() < deadline:
        time.sleep(0.01)
        acquired = cache.add(lock, 1, timeout=LOCK_SECONDS)
    try:
        yield
    finally:
        if acquired:
            cache.delete(lock)
