"""Rate limits on what a player does through the site: moves, new games, invitations, and seat
changes (join, leave, start, cancel: each writes an event).

Each limited view counts its POST requests per signed-in player (never per address: many players
may share one) with django-ratelimit, in Django's cache: Redis when REDIS_URL is set, so every
process shares the counters. The rate is read from settings at each request (ACTION_RATE_LIMIT,
GAME_CREATE_RATE_LIMIT, INVITE_RATE_LIMIT, SEAT_CHANGE_RATE_LIMIT). New games count only when one
is made: a form sent back with its errors costs nothing. Counting is in fixed windows, so a
player who is over the limit knows exactly when the window ends; the request past the limit is
answered with HTTP 429 before the view runs, so it changes nothing. Bots play through
games/play/actions.py, not these views, and are never counted. If the cache cannot count, the
request goes through.
"""

import logging
import re
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.shortcuts import render
from django.urls import reverse
from django_ratelimit.core import get_usage

from microchip_site.words import wait_words

log = logging.getLogger(__name__)

PERIOD_WORDS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


@dataclass(frozen=True)
class Limit:
    group: str  # the counter's name in the cache
    setting: str  # the setting that holds the rate, e.g. "20/h"
    things: str  # what is counted, in words

    @property
    def rate(self) -> str:
        return getattr(settings, self.setting)


ACTIONS = Limit("games.act", "ACTION_RATE_LIMIT", "moves")
GAME_CREATION = Limit("games.create", "GAME_CREATE_RATE_LIMIT", "new games")
INVITATIONS = Limit("games.invite", "INVITE_RATE_LIMIT", "invitations")
SEAT_CHANGES = Limit("games.seats", "SEAT_CHANGE_RATE_LIMIT", "seat changes")


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
    if request.method != "POST" or not request.user.is_authenticated:
        return None
    try:
        usage = get_usage(
            request, group=limit.group, key="user", rate=limit.rate, method="POST", increment=count
        )
    except Exception:  # the cache is down: playing matters more than counting
        log.warning("rate limit %s not counted: the cache failed", limit.group, exc_info=True)
        return None
    if usage is None:
        return None
    over = usage["should_limit"] if count else usage["count"] >= usage["limit"]
    if not over:
        return None
    # A window ends at the second it names, inclusive: the next request is counted afresh after.
    return max(int(usage["time_left"]), 0) + 1


def too_many(request, limit: Limit, wait: int, game_id=None):
    """The 429 answer: a line for the game page's htmx, else a page that says when to retry."""
    message = (
        f"Too many {limit.things} in a short time (at most {rate_in_words(limit.rate)}). "
        f"Try again in {wait_words(wait)}; nothing was changed."
    )
    if request.htmx and limit is ACTIONS:
        # Shown in the page's notice line: the game area stays as it is, ready for the retry.
        response = render(request, "games/partials/refusal.html", {"message": message}, status=429)
        response["HX-Retarget"] = "#live-notice"
        response["HX-Reswap"] = "innerHTML"
    else:
        if game_id:
            back, back_label = reverse("games:game", args=[game_id]), "Back to the game"
        else:
            back, back_label = reverse("dashboard"), "Back to your dashboard"
        context = {"message": message, "back_url": back, "back_label": back_label}
        response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def rate_in_words(rate: str) -> str:
    """'240/m' -> '240 a minute', '10/5m' -> '10 every 5 minutes'."""
    match = re.fullmatch(r"(\d+)/(\d*)([smhd])", rate)
    if not match:
        return rate
    count, multiple, unit = match.groups()
    word = PERIOD_WORDS[unit]
    if multiple and int(multiple) != 1:
        return f"{count} every {multiple} {word}s"
    return f"{count} {'an' if word == 'hour' else 'a'} {word}"
