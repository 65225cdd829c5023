"""Players' browsers, as far as the fault tests need them: moves posted over HTTP as the page's
htmx posts them, and the page's websocket, which keeps the version the page shows.

`Mover` plays one seat in a thread of its own: it plans a sensible move on the game as the
database has it (the greedy player of the rules package), posts it, and records the answer. A
request that gets no answer (the server was killed) is recorded as such, and the player plans
again. The server's own moves (the forced take of a column's last tile) are left to the server.

`LiveSocket` is the page's socket, on an event loop in a thread of its own (the client of
benchmarks/loadtest/client.py): it applies pushes that follow the version it shows,
asks for a sync when one is missing, and takes resyncs, as games/static/games/live.js does.
"""

import asyncio
import http.client
import json
import re
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.db import connection

from benchmarks.loadtest.client import WebSocket
from benchmarks.loadtest.sessions import sign_in
from games import rules
from games.models import Game
from games.rules.greedy import best_placement, choose_draft
from games.state_store import load_state, read_game

VERSION = re.compile(rb'data-version="(\d+)"')


def plan_move(game_id: int, seat: int):
    """Return (action JSON, version) for the seat's next sensible move, or None (nothing to do
    now, or the game is over)."""
    game, seats = read_game(game_id)  # the game and its seats as of one moment
    if not game.is_playing:
        return None
    state = load_state(game, seats)
    if state.can_arrange(seat) and state.trays[seat]:
        found = best_placement(state.boards[seat], list(state.trays[seat]))
        if found is not None:
            return found[1].to_json(), game.version
    if state.phase == rules.DRAFTING and state.current == seat:
        if state.pending is not None:
            return rules.ConfirmDraft().to_json(), game.version
        if state.forced_action() is not None:
            return None  # the server takes the column's last tile
        return choose_draft(state, seat).to_json(), game.version
    if (
        state.phase == rules.FINISHING
        and not state.finished[seat]
        and rules.can_finish(state.boards[seat])
    ):
        return rules.Finish().to_json(), game.version
    return None


@dataclass
class Answer:
    seat: int
    action: dict
    seen: int
    status: int | None  # None: no answer (the connection failed)
    version: int | None  # the version the answer shows
    sent_at: float
    took: float
    tag: str = ""  # what was going on (e.g. "redis down")


class Browser:
    """One signed-in player's HTTP side."""

    def __init__(self, user, port: int):
        self.player = sign_in(user)
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, data: dict, timeout: float = 15.0) -> tuple[int, bytes]:
        body = urlencode(data).encode()
        headers = {
            "Cookie": self.player.cookie,
            "X-CSRFToken": self.player.csrf,
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            self.conn.request("POST", path, body, headers)
            response = self.conn.getresponse()
            return response.status, response.read()
        except Exception:
            self.close()
            raise

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@dataclass
class Mover:
    """Play one seat over HTTP, in a thread, until the game ends or `stop()`."""

    browser: Browser
    game_id: int
    seat: int
    answers: list[Answer] = field(default_factory=list)
    tag: str = ""
    in_flight: bool = False
    error: BaseException | None = None

    def __post_init__(self):
        self._stop = threading.Event()
        self._go = threading.Event()
        self._go.set()
        self._thread = threading.Thread(target=self._run, name=f"seat-{self.seat}", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._go.set()

    def pause(self):
        """Stop sending moves; return once no request of this player's is in flight."""
        self._go.clear()
        deadline = time.monotonic() + 20
        while self.in_flight and time.monotonic() < deadline:
            time.sleep(0.005)
        assert not self.in_flight

    def resume(self):
        self._go.set()

    def join(self, timeout: float):
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"seat {self.seat}'s player did not stop"
        if self.error is not None:
            raise self.error

    def check(self) -> None:
        """Raise what stopped this player, if anything did."""
        if self.error is not None:
            raise AssertionError(f"seat {self.seat}'s player stopped: {self.error!r}")

    def accepted(self, tag: str | None = None) -> list[Answer]:
        return [a for a in self.answers if a.status == 200 and tag in (None, a.tag)]

    def _run(self):
        try:
            while not self._stop.is_set():
                self._go.wait()
                planned = plan_move(self.game_id, self.seat)
                if planned is None:
                    if not Game.objects.filter(pk=self.game_id, status="playing").exists():
                        return
                    self._stop.wait(0.02)  # the others' turn: look again
                    continue
                self._send(*planned)
        except BaseException as error:  # reported by join()
            self.error = error
        finally:
            self.browser.close()
            connection.close()

    def _send(self, action: dict, seen: int):
        self.in_flight = True
        if not self._go.is_set():  # paused while planning
            self.in_flight = False
            return
        tag, started = self.tag, time.monotonic()
        try:
            status, content = self.browser.post(
                f"/games/{self.game_id}/act/", {**action, "version": seen}
            )
        except (OSError, http.client.HTTPException):
            status, content = None, b""
        finally:
            self.in_flight = False
        found = VERSION.search(content)
        version = int(found.group(1)) if found else None
        took = time.monotonic() - started
        self.answers.append(Answer(self.seat, action, seen, status, version, started, took, tag))
        if status is None:
            self._stop.wait(0.1)  # the server is away: try again shortly
        elif status not in (200, 409):
            raise AssertionError(f"{status} for {action} at {seen}: {content[-800:]!r}")


class LiveSocket:
    """The page's websocket for one player, on an event loop in a thread of its own."""

    def __init__(self, browser: Browser, game_id: int, version: int):
        self.browser = browser
        self.game_id = game_id
        self.shown = version  # the version the page shows
        self.messages: list[dict] = []  # every message, with the connection it came on
        self.connections = 0
        self.closes: list[tuple[int, int | None]] = []  # (connection, close code or None)
        self.closed = threading.Event()
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="socket", daemon=True)
        self._thread.start()
        self._socket = None
        self._listeners: list[asyncio.Future] = []

    def connect(self, timeout: float = 10.0) -> int:
        """Open a new connection with ?v=<the version shown>, as the page does on every
        (re)connection; return its number (1 for the first)."""
        future = asyncio.run_coroutine_threadsafe(self._connect(), self.loop)
        return future.result(timeout)

    async def _connect(self):
        port = self.browser.port
        path = f"/ws/games/{self.game_id}/?v={self.shown}"
        headers = [("Cookie", self.browser.player.cookie), ("Origin", f"http://127.0.0.1:{port}")]
        self._socket = await WebSocket.connect("127.0.0.1", port, path, headers)
        self.connections += 1
        self.closed.clear()
        self._listeners.append(asyncio.ensure_future(self._listen(self._socket, self.connections)))
        return self.connections

    async def _listen(self, socket, number: int):
        while True:
            text = await socket.receive()
            if text is None:
                break
            message = json.loads(text)
            kind, version = message.get("type"), message.get("version")
            with self.lock:
                self.messages.append({"type": kind, "version": version, "connection": number})
                if (kind == "push" and version == self.shown + 1) or kind == "resync":
                    self.shown = max(self.shown, version)
                elif kind == "push" and version > self.shown + 1:
                    socket.send(json.dumps({"type": "sync", "version": self.shown}))
        with self.lock:
            self.closes.append((number, socket.close_code))
        if socket is self._socket:
            self.closed.set()

    def received(self, connection: int | None = None, kinds=("push", "resync", "synced")):
        with self.lock:
            return [
                m
                for m in self.messages
                if m["type"] in kinds and connection in (None, m["connection"])
            ]

    def close(self):
        async def shut():
            if self._socket is not None:
                self._socket.close()
            for listener in self._listeners:
                listener.cancel()
            await asyncio.gather(*self._listeners, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()


def while_playing(movers: list[Mover], condition):
    """`condition`, failing at once if a player stopped on an error (e.g. a 500)."""

    def check():
        for mover in movers:
            mover.check()
        return condition()

    return check
