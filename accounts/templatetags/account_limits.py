"""When a visitor stopped by one of allauth's rate limits may try again (for templates/429.html).

allauth answers 429 without saying which limit bit or for how long; for the pages whose limits
all count per address (sign-up), the wait is read back from allauth's own counters: each limit
keeps the times of the attempts it allowed, newest first, and the next attempt is allowed once
enough of them are older than the limit's period. For any other page it is None (the page then
asks for a few minutes), so the wait shown is never shorter than the real one.
"""

import math
import time

from django import template
from django.core.cache import cache

from microchip_site.words import wait_words

register = template.Library()

APP = "allauth.account"
# allauth's limits behind each page, where every one of them counts per address.
LIMITS_BY_PAGE = {"account_signup": ("signup",)}


@register.simple_tag(takes_context=True)
def allauth_wait(context) -> str:
    """The wait in words ('40 minutes'), or '' when it cannot be known for sure."""
    request = context.get("request")
    seconds = seconds_until_allowed(request) if request is not None else None
    return wait_words(seconds) if seconds else ""


def seconds_until_allowed(request) -> int | None:
    from allauth.core.internal.ratelimit import get_cache_key, get_rates

    match = getattr(request, "resolver_match", None)
    actions = LIMITS_BY_PAGE.get(match.url_name if match else None, ())
    now = time.time()
    waits = [0.0]
    try:
        for action in actions:
            for rate in get_rates(app=APP, action=action):
                if rate.per != "ip":
                    return None
                key = get_cache_key(request, app=APP, action=action, rate=rate)
                history = [t for t in cache.get(key, []) if t > now - rate.duration]
                if len(history) >= rate.amount:
                    waits.append(history[rate.amount - 1] + rate.duration - now)
    except Exception:  # allauth's internals changed, or the cache is down: say nothing exact
        return None
    return math.ceil(max(waits)) or None
