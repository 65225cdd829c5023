"""Websockets only from the site's own pages: the Origin a browser sends with every websocket must
be, scheme, host and port alike, either the site's own address (SITE_URL, CSRF_TRUSTED_ORIGINS)
or the address the socket itself was opened to (same origin, as Django's CSRF check reasons).

Channels' AllowedHostsOriginValidator compared the host alone against ALLOWED_HOSTS, so a page
served on another port or over plain http of the same host could open a player's socket (issue
20). A socket without an Origin is refused too: browsers always send one.
"""

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an address, the port filled in; None if it is not one."""
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or port is None:
        return None
    return parts.scheme, parts.hostname, port


def site_origins() -> set[tuple[str, str, int]]:
    found = {origin_of(url) for url in [settings.SITE_URL, *settings.CSRF_TRUSTED_ORIGINS]}
    return found - {None}


def allowed(scope) -> bool:
    headers = dict(scope.get("headers") or [])
    origin = origin_of(headers.get(b"origin", b"").decode("latin1"))
    if origin is None:
        return False
    if origin in site_origins():
        return True
    host = headers.get(b"host", b"").decode("latin1")
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return bool(host) and origin == origin_of(f"{scheme}://{host}")


class OriginCheck:
    """ASGI middleware: a websocket from another origin is closed before anything else runs."""

    def __init__(self, application):
        self.application = application
        self.deny = WebsocketDenier.as_asgi()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not allowed(scope):
            return await self.deny(scope, receive, send)
        return await self.application(scope, receive, send)
