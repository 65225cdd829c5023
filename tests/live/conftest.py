"""Live-update tests: Channels' WebsocketCommunicator against the real Redis channel layer.

With REDIS_URL set (CI) that Redis is used; otherwise one private Redis runs for the session.
Each test gets its own channel-layer prefix (tests/conftest.py `live_layer`), so no message or
group outlives its test.
"""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from microchip_site.asgi import application

ORIGIN = settings.SITE_URL.encode()  # the site's own pages (microchip_site/origins.py)


@pytest.fixture(autouse=True)
def _live_layer(live_layer, closes_thread_connections):
    """Every test here: the real Redis channel layer (tests/conftest.py), and the ORM's
    connections from asgiref's thread closed after it."""


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def connect(path, client: Client | None = None, *, origin=ORIGIN, host=None, address=None):
    """Open a websocket as the browser of `client` (anonymous without one), from `address` if
    given; return it (open, or closed: `connected`, `code`)."""
    headers = [(b"origin", origin)] if origin else []
    if host:
        headers.append((b"host", host))
    if client is not None:
        cookie = (
            f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        )
        headers.append((b"cookie", cookie.encode()))
    socket = WebsocketCommunicator(application, path, headers=headers)
    if address:  # what daphne puts in the scope (the peer, or the proxy's X-Forwarded-For)
        socket.scope["client"] = [address, 40000]
    connected, code = await socket.connect(timeout=5)
    socket.connected, socket.code = connected, code
    return socket


def game_path(game, version=None) -> str:
    path = f"/ws/games/{game.pk}/"
    return path if version is None else f"{path}?v={version}"


async def messages(socket, timeout=0.3) -> list[dict]:
    """Everything the socket has received until it stays quiet for `timeout` seconds."""
    received = []
    while not await socket.receive_nothing(timeout=timeout):
        received.append(await socket.receive_json_from())
    return received


async def next_of(socket, kind, timeout=3.0) -> dict:
    """The next message of type `kind` (others before it are skipped)."""
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["type"] == kind:
            return message


async def closed_with(socket) -> int | None:
    """The close code the server sent (after accepting), or None if it stays open."""
    while True:
        try:
            output = await socket.receive_output(timeout=2)
        except TimeoutError:
            return None
        if output["type"] == "websocket.close":
            return output.get("code")


def post_move(client: Client, game, action: dict, version: int):
    """Play `action` through the game's act endpoint, as htmx does."""
    data = {key: value for key, value in action.items() if value is not None}
    data["version"] = version
    return client.post(reverse("games:act", args=[game.pk]), data, HTTP_HX_REQUEST="true")


async def apost_move(client, game, action, version):
    return await sync_to_async(post_move)(client, game, action, version)
