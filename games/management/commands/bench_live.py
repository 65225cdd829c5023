"""Latency of live updates: from a move's HTTP request to its delivery on every open socket.

Run it against a running server (daphne) that shares this process's database, secret key and
Redis (the same DATABASE_URL or MICROCHIP_VAR_DIR, and REDIS_URL), on a throw-away database:

    REDIS_URL=redis://127.0.0.1:6390/0 python -m daphne -p 8300 microchip_site.asgi:application
    REDIS_URL=redis://127.0.0.1:6390/0 python manage.py bench_live --url http://127.0.0.1:8300 \\
        --games 20 --players 3 --seconds 30

It creates the games and their players, signs each player in (a server-side session), opens one
websocket per player on the game's page socket, then every player makes a sensible move (the
rules package's greedy player) about once a second over HTTP, as the page's htmx does, until
the time is up. For each accepted move it measures the time from sending the request to the
moment the last socket of that game has received the move's version (a push or a resync), and
prints the 50th and 95th percentiles, with the HTTP round trip alone for comparison.

This process also plays the server's clock: when a column's last tile must be taken it takes it
directly (those moves are not measured). It is a benchmark, not a test: it asserts nothing.
"""

import asyncio
import base64
import os
import random
import re
import statistics
import struct
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.core.management.base import BaseCommand, CommandError
from django.middleware.csrf import _get_new_csrf_string

from accounts.models import User
from games import actions, rules
from games.errors import ActionRefused
from games.models import Game
from games.rules.sim import best_placement, choose_draft
from games.state_store import load_state

VERSION = re.compile(rb'data-version="(\d+)"')
DELIVERY_TIMEOUT = 5.0


class Command(BaseCommand):
    help = "Measure p50/p95 from a move's HTTP request to its last websocket delivery."

    def add_arguments(self, parser):
        parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8300")
        parser.add_argument("--games", type=int, default=10)
        parser.add_argument("--players", type=int, default=2, choices=range(2, 6))
        parser.add_argument("--seconds", type=float, default=20.0)
        parser.add_argument(
            "--interval", type=float, default=1.0, help="seconds between a player's moves"
        )

    def handle(self, *args, url, games, players, seconds, interval, **options):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise CommandError("--url must be http://host:port")
        self.stdout.write(f"Setting up {games} games of {players} players...")
        tables = [self._table(players) for _ in range(games)]
        bench = Bench(parts.hostname, parts.port or 80, url, tables, seconds, interval)
        asyncio.run(bench.run())
        self._report(bench, games, players, seconds, interval)

    def _table(self, count: int) -> "Table":
        run = uuid.uuid4().hex[:8]
        users = [
            User.objects.create_user(f"bench-{run}-{n}", f"bench-{run}-{n}@example.invalid")
            for n in range(count)
        ]
        game = actions.create_game(
            creator=users[0], player_count=count, time_per_move=timedelta(days=1), rated=False
        )
        for user in users[1:]:
            actions.join_game(game_id=game.pk, user=user)
        game.refresh_from_db()
        seats = {seat.user_id: seat.number for seat in game.seats.all()}
        return Table(
            game_id=game.pk,
            version=game.version,
            players=[Player(seats[user.pk], *_signed_in(user)) for user in users],
        )

    def _report(self, bench: "Bench", games, players, seconds, interval):
        done = bench.delivery
        out = self.stdout.write
        out("")
        out(f"{games} games x {players} players, one move per player every {interval:g} s "
            f"when they have one, for {seconds:g} s ({games * players} websockets)")  # fmt: skip
        out(f"moves accepted: {len(bench.http)}  ({len(bench.http) / seconds:.1f}/s)   "
            f"refused as stale: {bench.refused}   errors: {bench.errors}   "
            f"not delivered within {DELIVERY_TIMEOUT:g} s: {bench.undelivered}   "
            f"forced takes by the clock: {bench.forced}")  # fmt: skip
        for name, values in (("HTTP round trip", bench.http), ("request -> last socket", done)):
            if values:
                p50, p95, worst = percentile(values, 50), percentile(values, 95), max(values) * 1000
                out(f"{name:<24} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {worst:7.1f} ms")
        if bench.sizes:
            out(f"push size: mean {statistics.mean(bench.sizes) / 1024:.1f} KiB, "
                f"{len(bench.sizes)} messages received")  # fmt: skip


def percentile(values, p) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index] * 1000


def _signed_in(user) -> tuple[str, str]:
    """A session for `user` and a CSRF secret, as a browser that logged in would hold."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return session.session_key, _get_new_csrf_string()


@dataclass
class Player:
    seat: int
    session: str
    csrf: str

    @property
    def cookie(self) -> str:
        session, csrf = settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME
        return f"{session}={self.session}; {csrf}={self.csrf}"


@dataclass
class Table:
    game_id: int
    version: int
    players: list[Player]
    sockets: list = field(default_factory=list)
    # Per socket: the newest version received, and when each version first arrived.
    arrivals: list[dict] = field(default_factory=list)
    news: asyncio.Event | None = None


class Bench:
    def __init__(self, host, port, url, tables, seconds, interval):
        self.host, self.port, self.url = host, port, url
        self.tables, self.seconds, self.interval = tables, seconds, interval
        self.http: list[float] = []
        self.delivery: list[float] = []
        self.sizes: list[int] = []
        self.refused = self.errors = self.undelivered = self.forced = 0

    async def run(self):
        for table in self.tables:
            table.news = asyncio.Event()
            for player in table.players:
                path = f"/ws/games/{table.game_id}/?v={table.version}"
                socket = await WebSocket.connect(
                    self.host, self.port, path, [("Cookie", player.cookie), ("Origin", self.url)]
                )
                table.sockets.append(socket)
                table.arrivals.append({})
        listeners = [
            asyncio.create_task(self._listen(table, index))
            for table in self.tables
            for index in range(len(table.sockets))
        ]
        end = time.monotonic() + self.seconds
        await asyncio.gather(
            *(self._play(table, player, end) for table in self.tables for player in table.players)
        )
        for task in listeners:
            task.cancel()
        for table in self.tables:
            for socket in table.sockets:
                socket.close()

    async def _listen(self, table: Table, index: int):
        socket, arrivals = table.sockets[index], table.arrivals[index]
        while True:
            text = await socket.receive()
            if text is None:
                return
            now = time.monotonic()
            found = re.search(r'"version":(\d+)', text[:200])
            if found and ('"type":"push"' in text[:40] or '"type":"resync"' in text[:40]):
                self.sizes.append(len(text))
                arrivals.setdefault(int(found.group(1)), now)
                table.news.set()

    async def _play(self, table: Table, player: Player, end: float):
        http = HTTPConnection(self.host, self.port)
        await asyncio.sleep(random.random() * self.interval)
        next_at = time.monotonic()
        while time.monotonic() < end:
            plan = await asyncio.to_thread(_plan, table.game_id, player.seat)
            if plan == "forced":
                self.forced += 1
            elif plan is not None:
                await self._move(http, table, player, *plan)
            next_at += self.interval
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        http.close()

    async def _move(self, http, table: Table, player: Player, action: dict, version: int):
        body = urlencode({**action, "version": version}).encode()
        headers = {
            "Cookie": player.cookie,
            "X-CSRFToken": player.csrf,
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        started = time.monotonic()
        try:
            status, content = await http.request(
                "POST", f"/games/{table.game_id}/act/", body, headers
            )
        except OSError:
            self.errors += 1
            return
        answered = time.monotonic()
        if status == 409:
            self.refused += 1
            return
        found = VERSION.search(content)
        if status != 200 or not found:
            self.errors += 1
            return
        self.http.append(answered - started)
        shown = int(found.group(1))
        deadline = started + DELIVERY_TIMEOUT
        while True:
            firsts = [_first_at_least(arrivals, shown) for arrivals in table.arrivals]
            if all(first is not None for first in firsts):
                self.delivery.append(max(firsts) - started)
                return
            table.news.clear()
            try:
                await asyncio.wait_for(table.news.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                self.undelivered += 1
                return


def _first_at_least(arrivals: dict, version: int) -> float | None:
    times = [at for number, at in arrivals.items() if number >= version]
    return min(times) if times else None


def _plan(game_id: int, seat: int):
    """Return (action JSON, version) for the player's next sensible move, "forced", or None."""
    game = Game.objects.get(pk=game_id)
    if not game.is_playing:
        return None
    state = load_state(game, list(game.seats.order_by("number")))
    if state.can_arrange(seat) and state.trays[seat]:
        found = best_placement(state.boards[seat], list(state.trays[seat]))
        if found is not None:
            return found[1].to_json(), game.version
    if state.phase == rules.DRAFTING and state.current == seat:
        if state.pending is not None:
            return rules.ConfirmDraft().to_json(), game.version
        if state.forced_action() is not None:
            try:  # the server's clock would do it: this process plays that part
                actions.take_last_tile(game_id=game_id)
            except ActionRefused:
                return None
            return "forced"
        return choose_draft(state, seat).to_json(), game.version
    if (
        state.phase == rules.FINISHING
        and not state.finished[seat]
        and rules.can_finish(state.boards[seat])
    ):
        return rules.Finish().to_json(), game.version
    return None


class HTTPConnection:
    """A small keep-alive HTTP/1.1 client: enough for the act endpoint."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(self, method, path, body: bytes, headers: dict) -> tuple[int, bytes]:
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                return await self._exchange(method, path, body, headers)
            except (OSError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise OSError("unreachable")

    async def _exchange(self, method, path, body, headers):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 f"Content-Length: {len(body)}", "Connection: keep-alive"]  # fmt: skip
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        status = int((await self.reader.readline()).split()[1])
        length, chunked, closing = None, False, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                closing = True
        if chunked:
            content = b""
            while size := int((await self.reader.readline()).strip(), 16):
                content += await self.reader.readexactly(size + 2)
                content = content[:-2]
            await self.reader.readline()
        elif length is not None:
            content = await self.reader.readexactly(length)
        else:
            content, closing = await self.reader.read(), True
        if closing:
            self.close()
        return status, content

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class WebSocket:
    """A small RFC 6455 client: text messages in and out, answers pings."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, host, port, path, headers):
        reader, writer = await asyncio.open_connection(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        lines += [f"{name}: {value}" for name, value in headers]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = await reader.readline()
        if b" 101 " not in status:
            raise CommandError(f"websocket refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        return cls(reader, writer)

    async def receive(self) -> str | None:
        message = b""
        while True:
            try:
                head = await self.reader.readexactly(2)
                length = head[1] & 0x7F
                if length == 126:
                    (length,) = struct.unpack("!H", await self.reader.readexactly(2))
                elif length == 127:
                    (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
                payload = await self.reader.readexactly(length)
            except (asyncio.IncompleteReadError, OSError):
                return None
            opcode = head[0] & 0x0F
            if opcode == 0x8:
                return None
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if head[0] & 0x80:
                return message.decode()

    def send(self, text: str):
        self._send_frame(0x1, text.encode())

    def _send_frame(self, opcode: int, data: bytes):
        mask = os.urandom(4)
        if len(data) < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | len(data))
        elif len(data) < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, len(data))
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, len(data))
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(data))
        self.writer.write(header + mask + masked)

    def close(self):
        self.writer.close()
