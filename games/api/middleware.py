"""What every answer of the API carries, whoever made it.

`ApiRefusalsInJson`: every answer of the API that refuses is JSON, `{"code": ...,
"message": ...}`, whoever made it: the API's own handlers (games/api/errors.py), and the
refusals made around them, by Django or django-ninja before any endpoint runs (a method the
path does not take, a body that cannot be read, a path that names nothing, a query with a NUL,
microchip_site/middleware.py) or by the site's failure page after one failed (the database out
of reach: 503 with Retry-After). A client never has to read an HTML page (issue 34).

`RateLimitFields`: an answer counted against a rate limit (games/play/rate_limits.py) says the
limit and what is left of it, in the IETF's RateLimit fields (draft-ietf-httpapi-ratelimit-
headers): `RateLimit-Policy: "games.act";q=240;w=60` (at most q in windows of w seconds) and
`RateLimit: "games.act";r=17;t=42` (r left; in t seconds the oldest request counted stops
counting: the window slides, infra/rate_limits.py), so that a program paces itself rather than
find the limit by its 429."""

import math

from django.conf import settings
from django.http import JsonResponse
from django.utils.translation import gettext as _

PREFIX = "/api/"
# The headers of the refusal that say what to do next, kept.
KEPT = ("Allow", "Retry-After", "WWW-Authenticate")


def _said(status: int, response) -> tuple[str, str]:
    """The code and the words of a refusal with this status."""
    if status == 405:
        methods = response.get("Allow", "")
        return "method_not_allowed", _("This endpoint takes %(methods)s only.") % {
            "methods": methods or "?"
        }
    if status == 404:
        return "not_found", _("There is nothing at this address of the API.")
    if status == 413:
        return "too_large", _("The body is too large.")
    if status == 503:
        return "unavailable", _(
            "The site cannot reach its database just now. Try again in a few seconds."
        )
    if status >= 500:
        return "error", _("The site failed to answer this request. It has been logged; try again.")
    words = response.content.decode("utf-8", "replace").strip()
    if status == 400 and words and len(words) < 300 and "<" not in words:
        return "bad_request", words
    return ("bad_request" if status == 400 else "error"), _("The request is invalid.")


class ApiRefusalsInJson:
    """Put last-but-first in MIDDLEWARE (outside everything that may refuse)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path_info.startswith(PREFIX)
            or response.get("Content-Type", "").startswith("application/json")
            or (settings.DEBUG and response.status_code == 500)  # a developer's traceback
        ):
            return response
        code, message = _said(response.status_code, response)
        refusal = JsonResponse({"code": code, "message": message}, status=response.status_code)
        for name in KEPT:
            if name in response:
                refusal[name] = response[name]
        return refusal


class RateLimitFields:
    """Put inside `ApiRefusalsInJson` (its refusals carry the fields too)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        used_up = getattr(request, "rate_limits", None)
        if used_up and request.path_info.startswith(PREFIX):
            limits = used_up.items()
            response["RateLimit-Policy"] = ", ".join(
                f'"{name}";q={usage.amount};w={math.ceil(usage.period)}' for name, usage in limits
            )
            response["RateLimit"] = ", ".join(
                f'"{name}";r={usage.left};t={math.ceil(usage.reset)}' for name, usage in limits
            )
        return response
