"""One address for a site on the loopback: a page asked for at another loopback name than the
site's own (127.0.0.1 for localhost, say) is sent to the same path at the site's (SITE_URL).

A browser keeps cookies per host name: a player who signed up at http://127.0.0.1:8000 has a
session there, while the confirmation link in their email (SITE_URL, what `manage.py up` prints)
opens http://localhost:8000, where they have none, so confirming their address landed on the
log-in form instead of signing them in. Logging in by the link alone, whatever the session,
would hand the account to anyone who holds the email; with one address for the site, the
session and the link are for the same host and the sign-up's own session confirms and signs in.

Only the loopback names are sent on, and only when the site's own address is one of them (a
machine running the site for itself); a deployment's host names are its proxy's business. Only
GET and HEAD are redirected: a form posted to the other name came from a page that was not.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponsePermanentRedirect

LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def _site() -> tuple[str, str, int | None] | None:
    """The site's (scheme, host, port) if its address is on the loopback, else None."""
    parts = urlsplit(settings.SITE_URL)
    if parts.hostname not in LOOPBACK:
        return None
    return parts.scheme, parts.hostname, parts.port


class LoopbackHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        site = _site()
        if site is not None and request.method in ("GET", "HEAD"):
            scheme, host, port = site
            asked = urlsplit(f"//{request.headers.get('Host', '')}")  # ALLOWED_HOSTS checks it
            if asked.hostname in LOOPBACK and asked.hostname != host and asked.port == port:
                netloc = settings.SITE_URL.split("//", 1)[1].split("/", 1)[0]
                return HttpResponsePermanentRedirect(
                    f"{scheme}://{netloc}{request.get_full_path()}"
                )
        return self.get_response(request)
