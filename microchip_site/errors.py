"""The answer to a request that failed on the server: 503 when the database (or its pool) is out
of reach, which comes back by itself, and 500 for anything else.

Django calls `server_error` from inside the handling of the exception (urls.py's handler500), so
the exception is `sys.exc_info()`'s. The page is drawn without the database, the session or the
user, in the language LocaleMiddleware chose (the cookie's or the browser's); to a page's htmx
request (a move) it answers a line that games/static/games/live.js shows ("your move was not
saved").
"""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.translation import gettext as _

# Seconds a client is asked to wait before trying again during an outage.
RETRY_AFTER = 10


def _unreachable(error: BaseException | None) -> bool:
    """Whether `error` says the database cannot be reached now (a restart, an outage, a pool
    with no connection to give in time: psycopg_pool's PoolTimeout is an OperationalError too,
    which Django wraps as its own), rather than that a query was wrong."""
    return isinstance(error, OperationalError | InterfaceError)


def _stylesheets() -> dict:
    """The site's stylesheets, if their collected names can be found: the page of a failure
    must not fail itself (a deployment whose static files are missing still gets a page)."""
    try:
        return {"site_css": static("microchip/site.css"), "dark_css": static("microchip/dark.css")}
    except ValueError:
        return {}


def server_error(request, *args, **kwargs):
    unreachable = _unreachable(sys.exc_info()[1])
    status = 503 if unreachable else 500
    if unreachable:
        title = _("The site is having trouble")
        message = _("It cannot reach its database just now. Try again in a few seconds.")
    else:
        title = _("Something went wrong")
        message = _("The site failed to answer this request. It has been logged; try again.")
    if request.headers.get("HX-Request") == "true":
        response = HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
    else:
        context = {"title": title, "message": message, **_stylesheets()}
        html = render_to_string("trouble.html", context)
        response = HttpResponse(html, status=status)
    if unreachable:
        response["Retry-After"] = str(RETRY_AFTER)
    return response
