"""Two web processes serve one site: a move made through one reaches the sockets held by the
other, at once. Nothing a page needs lives in one process's memory: sessions are in the database,
groups and presence in Redis.

The processes are real (tests/scale/conftest.py): `python -m daphne` on one port and, on another,
a second daphne or gunicorn (the HTTP of `manage.py up --http`), with the test database, one
Redis and one SECRET_KEY. The socket and the HTTP requests are the small clients of
benchmarks/loadtest/client.py.
"""

import asyncio
import concurrent.futures
import json
import re
import time
import urllib.request
from urllib.parse import urlencode, urlsplit

import pytest

from benchmarks.loadtest.client import HTTPConnection, WebSocket
from benchmarks.loadtest.sessions import sign_in
from games import rules
from tests.games.playing import current_state

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]

PUSH_WITHIN = 1.0  # seconds from sending the move to its push on the other process's socket
VERSION = re.compile(rb'id="game"[^>]*data-version="(\d+)"')


def run_async(coroutine):
    """Run `coroutine` on an event loop of its own thread (whatever loop this thread may hold)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=120)


def process_of(url: str) -> int:
    with urllib.request.urlopen(f"{url}/health/", timeout=10) as answer:
        body = json.load(answer)
    assert body["status"] == "ok", body
    return body["process"]


async def next_message(socket: WebSocket, wanted, timeout: float) -> dict:
    """Return the first message for which `wanted(message)` is true; fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            text = await asyncio.wait_for(socket.receive(), max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            raise AssertionError(f"no such message on the socket within {timeout} s") from None
        assert text is not None, "the server closed the socket"
        message = json.loads(text)
        if wanted(message):
            return message


def test_a_move_through_one_process_is_pushed_at_once_to_a_socket_on_the_other(
    two_servers, start_game
):
    first, second = two_servers.urls
    assert process_of(first) != process_of(second)
    game = start_game(2)
    seats = {seat.number: seat.user for seat in game.seats.select_related("user")}
    mover, watcher = seats[game.current_seat], seats[1 - game.current_seat]
    moving, watching = sign_in(mover), sign_in(watcher)
    tile = current_state(game).draw_tiles()[0]
    version = game.version

    async def scenario():
        host, port = urlsplit(first).hostname, urlsplit(first).port
        socket = await WebSocket.connect(
            host,
            port,
            f"/ws/games/{game.pk}/?v=0",  # an old page: the first process draws it all (warm)
            [("Cookie", watching.cookie), ("Origin", first)],
        )
        try:
            resync = await next_message(socket, lambda m: m["type"] == "resync", 30)
            assert resync["version"] == version

            http = HTTPConnection(urlsplit(second).hostname, urlsplit(second).port)
            headers = {"Cookie": moving.cookie, "X-CSRFToken": moving.csrf, "HX-Request": "true"}
            # Warm the second process up on the page, as the mover's browser would have.
            status, _, _ = await http.request("GET", f"/games/{game.pk}/", b"", headers)
            assert status == 200

            body = urlencode({**rules.Draft(tile).to_json(), "version": version}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            sent = time.monotonic()
            status, _, content = await http.request("POST", f"/games/{game.pk}/act/", body, headers)
            answered = time.monotonic()
            http.close()
            assert status == 200, content[:500]
            moved_to = int(VERSION.search(content).group(1))
            assert moved_to == version + 1

            push = await next_message(
                socket, lambda m: m["type"] in ("push", "resync"), PUSH_WITHIN * 5
            )
            arrived = time.monotonic()
            return push, content, answered - sent, arrived - sent
        finally:
            socket.close()

    push, answer, http_seconds, push_seconds = run_async(scenario())
    print(f"HTTP answer {http_seconds * 1000:.0f} ms, push {push_seconds * 1000:.0f} ms")

    assert push["type"] == "push"  # the next version, drawn for the watcher by the first process
    assert push["version"] == version + 1
    # What the draft changed, in pieces (the first process drew the version before for this
    # page): the draw column it came from, and the mover's tray it went to.
    assert 'id="pool-column-' in push["html"]
    assert f'id="seat-{game.current_seat}-tray-tiles"' in push["html"]
    assert f'data-tile="{tile}"' in push["html"]  # the drafted tile, now in the tray
    assert push_seconds < PUSH_WITHIN, (
        f"the push arrived {push_seconds:.3f} s after the move was sent "
        f"(its HTTP answer took {http_seconds:.3f} s)"
    )
    # The second process saw the watcher's socket on the first one (presence is in Redis).
    assert f'aria-label="{watcher.username} is online now"'.encode() in answer
