"""Rate limits on what a player does through the site: moves, new games, invitations, and seat
changes (join, leave, start, cancel: each writes an event).

Each limited view counts its POST requests per signed-in player (never per address: many players
may share one) in Django's cache: Redis when REDIS_URL is set, so every process shares the
counters. On Redis a count is one round trip (a MULTI/EXEC of SET NX EX and INCR, through
django-redis's public get_redis_connection): every move is counted, and django-ratelimit, which
counted them before, made two (its cache.add, then cache.incr; issue 21). The rate is read from
settings at each request (ACTION_RATE_LIMIT, GAME_CREATE_RATE_LIMIT, INVITE_RATE_LIMIT,
SEAT_CHANGE_RATE_LIMIT), one rate each. New games count only when one
is made: a form sent back with its errors costs nothing. Counting is in fixed windows, so a
player who is over the limit knows exactly when the window ends; the request past the limit is
answered with HTTP 429 before the view runs, so it changes nothing. Bots play through
games/play/actions.py, not these views, and are never counted. If the cache cannot count, the
request goes through.
"""

import logging
import re
import time
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy
from django_redis import get_redis_connection
from django_redis.cache import RedisCache

from infra.words import wait_words

log = logging.getLogger(__name__)

PER_PERIOD = {
    # Translators: a rate limit, "240 a minute": at most %(count)s requests in that time.
    "s": gettext_lazy("%(count)s a second"),
    "m": gettext_lazy("%(count)s a minute"),
    "h": gettext_lazy("%(count)s an hour"),
    "d": gettext_lazy("%(count)s a day"),
}
EVERY_PERIODS = {
    "s": ngettext_lazy(
        # Translators: a rate limit, "10 every 5 minutes": at most %(count)s requests in that
        # time.
        "%(count)s every %(multiple)s second",
        "%(count)s every %(multiple)s seconds",
        "multiple",
    ),
    "m": ngettext_lazy(
        "%(count)s every %(multiple)s minute", "%(count)s every %(multiple)s minutes", "multiple"
    ),
    "h": ngettext_lazy(
        "%(count)s every %(multiple)s hour", "%(count)s every %(multiple)s hours", "multiple"
    ),
    "d": ngettext_lazy(
        "%(count)s every %(multiple)s day", "%(count)s every %(multiple)s days", "multiple"
    ),
}
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
ONE_RATE = r"(\d+)/(\d*)([smhd])"  # 240/m, 20/h, 10/5m
# A counter outlives its window by this much: a request at the window's last second still
# finds it (the key names the window, so a late one never counts in the next).
KEPT_AFTER_WINDOW = 5


@dataclass(frozen=True)
class Limit:
    group: str  # the counter's name in the cache
    setting: str  # the setting that holds the rate, e.g. "20/h"
    # The refusal, in the reader's language: %(rate)s the limit, %(wait)s the time to wait.
    refusal: str = ""
    every_method: bool = False  # count reads (GET) too, not only POSTs

    @property
    def rate(self) -> str:
        return getattr(settings, self.setting)


ACTIONS = Limit(
    "games.act",
    "ACTION_RATE_LIMIT",
    gettext_lazy(
        # Translators: %(rate)s is a rate such as "240 a minute", %(wait)s a time such as
        # "5 minutes".
        "Too many moves in a short time (at most %(rate)s). Try again in %(wait)s; nothing was "
        "changed."
    ),
)
GAME_CREATION = Limit(
    "games.create",
    "GAME_CREATE_RATE_LIMIT",
    gettext_lazy(
        "Too many new games in a short time (at most %(rate)s). Try again in %(wait)s; nothing "
        "was changed."
    ),
)
INVITATIONS = Limit(
    "games.invite",
    "INVITE_RATE_LIMIT",
    gettext_lazy(
        "Too many invitations in a short time (at most %(rate)s). Try again in %(wait)s; "
        "nothing was changed."
    ),
)
SEAT_CHANGES = Limit(
    "games.seats",
    "SEAT_CHANGE_RATE_LIMIT",
    gettext_lazy(
        "Too many seat changes in a short time (at most %(rate)s). Try again in %(wait)s; "
        "nothing was changed."
    ),
)
CHAT = Limit(
    "games.chat",
    "CHAT_RATE_LIMIT",
    gettext_lazy(
        "Too many messages in a short time (at most %(rate)s). Try again in %(wait)s; nothing "
        "was changed."
    ),
)
REPORTS = Limit(
    "games.report",
    "REPORT_RATE_LIMIT",
    gettext_lazy(
        "Too many reports in a short time (at most %(rate)s). Try again in %(wait)s; nothing "
        "was changed."
    ),
)
REPORT_LOOKUPS = Limit(
    "games.report_lookup",
    "REPORT_LOOKUP_RATE_LIMIT",
    gettext_lazy(
        "Too many report forms opened in a short time (at most %(rate)s). Try again in %(wait)s."
    ),
    every_method=True,
)
PEOPLE = Limit(
    "accounts.people",
    "PEOPLE_RATE_LIMIT",
    gettext_lazy(
        "Too many follows and blocks in a short time (at most %(rate)s). Try again in "
        "%(wait)s; nothing was changed."
    ),
)
API_READS = Limit(
    "api.read",
    "API_READ_RATE_LIMIT",
    gettext_lazy(
        "Too many API reads in a short time (at most %(rate)s). Try again in %(wait)s; nothing "
        "was changed."
    ),
    every_method=True,
)


@dataclass(frozen=True)
class Usage:
    """A limit as one request left it: `amount` in windows of `period` seconds, `left` of
    them in this window, which ends in `reset` seconds."""

    amount: int
    period: int
    left: int
    reset: int


def per_player(limit: Limit, *, counts=None):
    """Answer a signed-in player's POST with 429 once they pass `limit` in its window.

    Every POST counts; with `counts`, only those whose response `counts(response)` says did
    what is limited (a new game made, not a form sent back with its errors). Put it below
    @login_required and @require_POST, so that only requests the view would otherwise serve
    are counted.
    """

    def decorator(view):
        @wraps(view)
        def limited_view(request, *args, **kwargs):
            wait = seconds_to_wait(request, limit, count=counts is None)
            if wait is not None:
                return too_many(request, limit, wait, game_id=kwargs.get("game_id"))
            response = view(request, *args, **kwargs)
            if counts is not None and request.method == "POST" and counts(response):
                seconds_to_wait(request, limit, count=True)
            return response

        return limited_view

    return decorator


def seconds_to_wait(request, limit: Limit, *, count: bool = True) -> int | None:
    """Count this request (unless not `count`: then only look whether one more may be made);
    return how long the player must wait if it is over the limit."""
    if not limit.every_method and request.method != "POST":
        return None
    if not request.user.is_authenticated:
        return None
    try:
        amount, period = parse_rate(limit.rate)
        now = int(time.time())
        window = now - now % period  # fixed windows: the wait is exact, to the second
        key = f"rate-limit:{limit.group}:{request.user.pk}:{period}:{window}"
        timeout = period + KEPT_AFTER_WINDOW
        used = _count(key, timeout) if count else _read(key)
    except Exception:  # the cache is down: playing matters more than counting
        log.warning("rate limit %s not counted: the cache failed", limit.group, exc_info=True)
        return None
    reset = window + period - now  # the next window counts afresh
    # What is left, for the answer's RateLimit fields (games/api/middleware.py).
    used_up = getattr(request, "rate_limits", {})
    used_up[limit.group] = Usage(amount, period, max(0, amount - used), reset)
    request.rate_limits = used_up
    over = used > amount if count else used >= amount
    return reset if over else None


def parse_rate(rate: str) -> tuple[int, int]:
    """'240/m' -> (240, 60), '10/5m' -> (10, 300): the amount and the window in seconds."""
    match = re.fullmatch(ONE_RATE, rate)
    if not match:
        raise ValueError(f"{rate!r} is not a rate like 240/m")
    count, multiple, unit = match.groups()
    return int(count), int(multiple or 1) * UNIT_SECONDS[unit]


def _count(key: str, timeout: int) -> int:
    """Add one to the counter `key` (made with `timeout` if new); return its count."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        # One round trip, atomic: the counter always has its expiry.
        pipe = get_redis_connection("default").pipeline(transaction=True)
        full = backend.make_key(key)
        pipe.set(full, 0, ex=timeout, nx=True)
        pipe.incr(full)
        return pipe.execute()[1]
    backend.add(key, 0, timeout)  # the per-process cache of a bare `manage.py`
    return backend.incr(key)


def _read(key: str) -> int:
    return int(caches["default"].get(key) or 0)


def refusal_words(limit: Limit, wait: int) -> str:
    """Why the request past `limit` was refused, and when to come back, in the reader's words."""
    return str(limit.refusal) % {"rate": rate_in_words(limit.rate), "wait": wait_words(wait)}


def too_many(request, limit: Limit, wait: int, game_id=None):
    """The 429 answer: a line for the game page's htmx, else a page that says when to retry."""
    message = refusal_words(limit, wait)
    if request.htmx and limit in (CHAT, PEOPLE):
        # In words where the answer goes: under the message being written, which stays for the
        # retry (chat.js), or in place of a profile's buttons.
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    elif request.htmx and limit is ACTIONS:
        # Shown in the page's notice line: the game area stays as it is, ready for the retry.
        response = render(request, "games/partials/refusal.html", {"message": message}, status=429)
        response["HX-Retarget"] = "#live-notice"
        response["HX-Reswap"] = "innerHTML"
    else:
        if game_id:
            back, back_label = reverse("games:game", args=[game_id]), _("Back to the game")
        else:
            back, back_label = reverse("dashboard"), _("Back to your dashboard")
        context = {"message": message, "back_url": back, "back_label": back_label}
        response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def rate_in_words(rate: str) -> str:
    """'240/m' -> '240 a minute', '10/5m' -> '10 every 5 minutes'."""
    match = re.fullmatch(ONE_RATE, rate)
    if not match:
        return rate
    count, multiple, unit = match.groups()
    if multiple and int(multiple) != 1:
        return EVERY_PERIODS[unit] % {"count": count, "multiple": int(multiple)}
    return PER_PERIOD[unit] % {"count": count}
