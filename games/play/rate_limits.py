"""Rate limits on what a player does through the site: moves, new games, invitations, seat
changes (join, leave, start, cancel: each writes an event), talk, reports, follows and API reads.

Each limited view counts its requests per signed-in player (never per address: many players may
share one) with the site's one limiter (infra/rate_limits.py: a sliding window in the shared
cache, one Redis round trip per counted request). The rate is read from settings at each request
(ACTION_RATE_LIMIT, GAME_CREATE_RATE_LIMIT, ...), one rate each. New games count only when one
is made: a form sent back with its errors costs nothing. The request past the limit is answered
with HTTP 429 before the view runs, so it changes nothing, and says exactly how long to wait.
Bots play through games/play/actions/, not these views, and are never counted. If the cache
cannot count, the request goes through.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from infra import rate_limits
from infra.rates import parse_rate
from infra.words import wait_words


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


View = Callable[..., HttpResponse]


def per_player(
    limit: Limit, *, counts: Callable[[HttpResponse], bool] | None = None
) -> Callable[[View], View]:
    """Answer a signed-in player's POST with 429 once they pass `limit` in its window.

    Every POST counts; with `counts`, only those whose response `counts(response)` says did
    what is limited (a new game made, not a form sent back with its errors). Put it below
    @login_required and @require_POST, so that only requests the view would otherwise serve
    are counted.
    """

    def decorator(view: View) -> View:
        @wraps(view)
        def limited_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            wait = seconds_to_wait(request, limit, count=counts is None)
            if wait is not None:
                return too_many(request, limit, wait, game_id=kwargs.get("game_id"))
            response = view(request, *args, **kwargs)
            if counts is not None and request.method == "POST" and counts(response):
                seconds_to_wait(request, limit, count=True)
            return response

        return limited_view

    return decorator


def seconds_to_wait(request: HttpRequest, limit: Limit, *, count: bool = True) -> int | None:
    """Count this request (unless not `count`: then only look whether one more may be made);
    return how long the player must wait if it is over the limit (whole seconds)."""
    if not limit.every_method and request.method != "POST":
        return None
    if not request.user.is_authenticated:
        return None
    rate = parse_rate(limit.rate)
    key = str(request.user.pk)
    if count:
        usage = rate_limits.hit(limit.group, rate, key)
    else:
        usage = rate_limits.peek(limit.group, rate, key)
    # What is left, for the answer's RateLimit fields (games/api/middleware.py).
    used_up = getattr(request, "rate_limits", {})
    used_up[limit.group] = usage
    request.rate_limits = used_up
    refused = not usage.allowed if count else usage.wait > 0
    return int(rate_limits.retry_after(usage.wait)) if refused else None


def refusal_words(limit: Limit, wait: int) -> str:
    """Why the request past `limit` was refused, and when to come back, in the reader's words."""
    rate = parse_rate(limit.rate).in_words()
    return str(limit.refusal) % {"rate": rate, "wait": wait_words(wait)}


def too_many(
    request: HttpRequest, limit: Limit, wait: int, game_id: int | None = None
) -> HttpResponse:
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
        return rate_limits.too_many(request, wait, message, back_url=back, back_label=back_label)
    response["Retry-After"] = rate_limits.retry_after(wait)
    return response
