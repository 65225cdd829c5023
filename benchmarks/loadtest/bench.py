"""Whole games played at once over HTTP and websockets, as players' pages would play them.

Each table is one game; each of its players has a keep-alive HTTP connection and the page's
websocket. A player thinks (a random time around `think`), then makes the move a sensible
player would (the rules package's greedy player) through the act endpoint, as the page's htmx
does. The players of a table share one copy of the game's state (games/rules), so planning
costs the server nothing: each accepted move is applied to it, and it is read again from the
database only when the server did something on its own (taking the last tile of a column) or
refused a move.

Every socket does what live.js does: it connects with the version and the looks its page
shows, applies pushes in order (one further ahead than the next version means one went missing:
it asks for a resync, `{"type": "sync"}`), takes a resync when it comes, tells the server what
the page shows after a resync or an answer that changed the pool, and sends the page's heartbeat
every HEARTBEAT seconds, a watcher's page every third time (`{"type": "ping", "version": v,
"visible": true}`: it keeps the player's presence, so that no email is queued for a player
looking at the game).

Each page's socket comes from a loopback address of its own (127.36.x.y), as each browser
comes from its own address: the platform's limits of sockets per address (behind nginx, the
address it passes on) count each page, not the benchmark's one machine.

A table may have watchers beside its players: signed-in viewers with the game's page open, each
loading the game (its fragment, for the looks), then with the page's socket as above; they
never move.

Measured, per accepted move: the HTTP round trip, and for every other player's socket of the
table the time from sending the request to that socket receiving the move's version (a push or
a resync); for every watcher's socket, the time from the move's answer to the socket receiving
it. Also the bytes every watcher's socket received while the games were played, the resyncs the
sockets received and the syncs they asked for. Errors are answers other than 200/409,
connection failures, pushes that never came, and sockets the server closed.
"""

import asyncio
import itertools
import json
import random
import re
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from games import rules
from games.rules.greedy import best_placement, choose_draft

from .client import HTTPConnection, WebSocket
from .page import PageLooks

VERSION_IN_PAGE = re.compile(rb'data-version="(\d+)"')
VERSION_IN_PUSH = re.compile(r'"version":\s*(\d+)')
CARRIES_VERSION = re.compile(r'"type":\s*"(push|resync)"')
# An answer that changed the pool, after which live.js tells the socket what the page shows.
CHANGES_POOL = re.compile(r' id="pool[-"]')
DELIVERY_TIMEOUT = 5.0
HEARTBEAT = 25.0  # seconds between a visible page's pings (live.js)
WATCHING_BEATS_EVERY = 3  # a watcher's page pings every third time (live.js)
LOOKS_EVERY = 1.0  # seconds: a page tells its socket its looks at most this often (live.js)
PAGE_LOADS_AT_ONCE = 4  # watchers' page loads in flight at once, before the play
# How long a player waits for the server to take a column's last tile before reading the game.
FORCED_TAKE_WAIT = 10.0


@dataclass
class Player:
    seat: int
    cookie: str
    csrf: str
    http: HTTPConnection | None = None
    socket: WebSocket | None = None
    seen: int = 0  # the newest version this player's socket received
    shown: int = 0  # the version this player's page shows (pushes and its own answers)
    page: str = field(default_factory=lambda: uuid.uuid4().hex[:16])  # as live.js names it
    arrivals: dict = field(default_factory=dict)  # version -> when it first arrived
    looks: PageLooks = field(default_factory=PageLooks)  # what the page shows, piece by piece
    looks_told: float = 0.0  # when the page last told its socket its looks
    looks_due: asyncio.TimerHandle | None = None  # a report put off until a second has passed
    watching: bool = False  # a watcher's page: it never moves


def watcher(cookie: str) -> Player:
    """A signed-in viewer of a game, not seated at it, with the game's page open."""
    return Player(seat=-1, cookie=cookie, csrf="", watching=True)


@dataclass
class Table:
    game_id: int
    state: rules.GameState
    version: int
    players: list[Player]
    watchers: list[Player] = field(default_factory=list)
    over: bool = False
    waiters: set = field(default_factory=set)

    def notify(self) -> None:
        """Wake everyone waiting for news of this table."""
        for waiter in self.waiters:
            waiter.set()

    async def wait_for_news(self, timeout: float) -> None:
        waiter = asyncio.Event()
        self.waiters.add(waiter)
        try:
            await asyncio.wait_for(waiter.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            self.waiters.discard(waiter)

    @property
    def newest_seen(self) -> int:
        return max([self.version, *(player.seen for player in self.players)])


@dataclass
class Figures:
    actions: list[float] = field(default_factory=list)  # seconds, accepted moves
    deliveries: list[float] = field(default_factory=list)  # seconds, per other player's socket
    stale: int = 0  # 409: the page was behind (a real page redraws and tries again)
    refused: int = 0  # 422/403/400: the client's model of the game was wrong
    errors: dict = field(default_factory=dict)  # kind -> count
    undelivered: int = 0
    forced_takes: int = 0
    games_ended: int = 0
    push_bytes: int = 0
    answer_bytes: int = 0
    partial_answers: int = 0  # answered with only the parts the move changed
    pushes: int = 0
    answer_sizes: list[int] = field(default_factory=list)  # bytes of each accepted move's answer
    push_sizes: list[int] = field(default_factory=list)  # bytes of each push that carried a move
    heartbeats: int = 0
    # Resyncs received and syncs asked for by the sockets of the players and of the watchers.
    resyncs: dict = field(default_factory=lambda: {"players": 0, "watchers": 0})
    syncs: dict = field(default_factory=lambda: {"players": 0, "watchers": 0})
    server_closes: dict = field(default_factory=dict)  # close code -> sockets the server closed
    watchers: int = 0  # watchers' sockets open when the play began
    watched_moves: int = 0  # accepted moves of the tables with watchers
    watcher_moves: int = 0  # of those moves, each counted once per watcher of its table
    watcher_deliveries: list[float] = field(default_factory=list)  # seconds, answer to receipt
    watcher_undelivered: int = 0
    watcher_bytes: int = 0  # every message the watchers' sockets received during the play
    watcher_pushes: int = 0
    started: float = 0.0
    finished: float = 0.0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Bench:
    """Play every table's game to its end (or until `seconds` have passed)."""

    def __init__(self, host, port, origin, tables, *, think, seconds, reload_state,
                 heartbeat: float = HEARTBEAT, on_play=None):  # fmt: skip
        self.host, self.port, self.origin = host, port, origin
        self.tables, self.think, self.seconds = tables, think, seconds
        # reload_state(game_id) -> (GameState, version): the game as the database holds it.
        self.reload_state = reload_state
        self.heartbeat = heartbeat
        # Called once every page is loaded and every socket open, just before the play: what
        # is measured per move starts there (the sampler of the server's processes).
        self.on_play = on_play
        self.figures = Figures()
        self.random = random.Random(20261202)
        self.measuring: set[asyncio.Task] = set()
        self.playing = False
        self.addresses = itertools.count()

    async def run(self) -> Figures:
        for table in self.tables:
            for player in table.players:
                player.http = HTTPConnection(self.host, self.port)
                await self._load_page(table, player)
                await self._open_socket(table, player, table.version)
        await self._open_watchers()
        pages = [
            (table, page) for table in self.tables for page in (*table.players, *table.watchers)
        ]
        listeners = [asyncio.create_task(self._listen(table, page)) for table, page in pages]
        beats = [asyncio.create_task(self._beat(page)) for _, page in pages]
        self.figures.watchers = sum(len(table.watchers) for table in self.tables)
        if self.on_play is not None:
            self.on_play()
        self.playing = True
        self.figures.started = time.monotonic()
        end = self.figures.started + self.seconds
        await asyncio.gather(
            *(self._play(table, player, end) for table in self.tables for player in table.players)
        )
        self.figures.finished = time.monotonic()
        if self.measuring:  # the last moves' pushes
            await asyncio.wait(list(self.measuring))
        self.playing = False
        for task in [*listeners, *beats]:
            task.cancel()
        for _, page in pages:
            page.socket.close()
            if page.http is not None:
                page.http.close()
        return self.figures

    async def _open_socket(self, table: Table, page: Player, version: int) -> None:
        """Open the page's socket as live.js does: with the version and the looks it shows."""
        path = f"/ws/games/{table.game_id}/?page={page.page}&v={version}"
        path += f"&looks={quote(page.looks.header())}"
        headers = [("Cookie", page.cookie), ("Origin", self.origin)]
        number = next(self.addresses)
        source = (
            f"127.36.{number // 250 % 250}.{number % 250 + 1}" if _loopback(self.host) else None
        )
        page.socket = await WebSocket.connect(self.host, self.port, path, headers, source)
        page.seen = page.shown = version

    async def _open_watchers(self) -> None:
        """Load every watcher's page (the game, for its looks and version) and open its socket,
        a few at a time."""
        waiting = [(table, page) for table in self.tables for page in table.watchers]
        connections = [HTTPConnection(self.host, self.port) for _ in range(PAGE_LOADS_AT_ONCE)]

        async def load(connection):
            while waiting:
                table, page = waiting.pop()
                headers = {"Cookie": page.cookie, "HX-Request": "true"}
                status, _, content = await connection.request(
                    "GET", f"/games/{table.game_id}/fragment/", b"", headers
                )
                found = VERSION_IN_PAGE.search(content)
                if status != 200 or found is None:
                    raise RuntimeError(f"a watcher cannot load game {table.game_id}: HTTP {status}")
                page.looks.load(content.decode())
                await self._open_socket(table, page, int(found.group(1)))

        try:
            await asyncio.gather(*(load(connection) for connection in connections))
        finally:
            for connection in connections:
                connection.close()

    async def _listen(self, table: Table, page: Player) -> None:
        """Receive what the page's socket brings, and do with it what live.js does."""
        who = "watchers" if page.watching else "players"
        while True:
            text = await page.socket.receive()
            if text is None:
                code = page.socket.close_code
                if self.playing and code is not None and code != 1000:
                    self.figures.server_closes[code] = self.figures.server_closes.get(code, 0) + 1
                return
            now = time.monotonic()
            if page.watching and self.playing:
                self.figures.watcher_bytes += len(text)
            kind = CARRIES_VERSION.search(text[:80])
            if not kind:
                continue
            found = VERSION_IN_PUSH.search(text[:200])
            if not found:
                continue
            version = int(found.group(1))
            if page.watching:
                self.figures.watcher_pushes += 1
            else:
                self.figures.pushes += 1
                self.figures.push_bytes += len(text)
                self.figures.push_sizes.append(len(text))
            page.arrivals.setdefault(version, now)
            page.seen = max(page.seen, version)
            if kind.group(1) == "resync":
                self.figures.resyncs[who] += 1
                if version >= page.shown:  # else older than what the page shows: dropped
                    page.looks.load(json.loads(text)["html"])
                    page.shown = version
                    self._report_looks(page)
            elif version == page.shown + 1:
                page.looks.swap(json.loads(text)["html"])
                page.shown = version
            elif version > page.shown + 1:  # a push went missing: the page asks for the game
                self.figures.syncs[who] += 1
                page.socket.send(json.dumps({"type": "sync", "version": page.shown}))
            table.notify()

    async def _beat(self, page: Player) -> None:
        """The visible page's heartbeat (live.js): its presence, and the version it shows."""
        every = self.heartbeat * (WATCHING_BEATS_EVERY if page.watching else 1)
        await asyncio.sleep(self.random.uniform(0, every))
        while True:
            ping = {"type": "ping", "version": page.shown, "visible": True}
            page.socket.send(json.dumps(ping))
            self.figures.heartbeats += 1
            await asyncio.sleep(every)

    async def _play(self, table: Table, player: Player, end: float) -> None:
        # Players of one table do not all start at the same moment.
        await asyncio.sleep(self.random.uniform(0, self.think))
        while not table.over and time.monotonic() < end:
            move = self._plan(table, player.seat)
            if move == "wait":
                await table.wait_for_news(self.think)
                continue
            if move == "forced":
                await self._await_forced_take(table)
                continue
            await asyncio.sleep(self.random.uniform(0.5, 1.5) * self.think)
            if table.over:
                return
            move = self._plan(table, player.seat)  # the game may have moved while thinking
            if isinstance(move, rules.Action):
                await self._move(table, player, move)

    def _plan(self, table: Table, seat: int):
        """Return the player's next action, "forced" (the server's move is due) or "wait"."""
        state = table.state
        if state.is_terminal():
            table.over = True
            return "wait"
        if state.phase == rules.DRAFTING and state.current == seat:
            if state.pending is not None:
                return rules.ConfirmDraft()
            if state.forced_action() is not None:
                return "forced"
            return choose_draft(state, seat)
        if state.can_arrange(seat) and state.trays[seat]:
            found = best_placement(state.boards[seat], list(state.trays[seat]))
            if found is not None:
                return found[1]
        if (
            state.phase == rules.FINISHING
            and not state.finished[seat]
            and rules.can_finish(state.boards[seat])
        ):
            return rules.Finish()
        return "wait"

    async def _await_forced_take(self, table: Table) -> None:
        """The server takes the last tile of the column (a task): read the game again until it
        has, since this client does not know which tile went where."""
        deadline = time.monotonic() + FORCED_TAKE_WAIT
        await table.wait_for_news(0.2)
        while True:
            await self._reload(table)
            if table.state.forced_action() is None:
                self.figures.forced_takes += 1
                return
            if time.monotonic() > deadline:
                self.figures.error("forced take not done in time")
                return
            await asyncio.sleep(0.2)

    async def _reload(self, table: Table) -> None:
        state, version = await asyncio.to_thread(self.reload_state, table.game_id)
        table.state, table.version = state, max(table.version, version)
        table.over = state.is_terminal()
        table.notify()

    async def _load_page(self, table: Table, player: Player) -> None:
        """Draw the game as the player's page first shows it (what the page then says it shows)."""
        headers = {"Cookie": player.cookie, "HX-Request": "true"}
        status, _, content = await player.http.request(
            "GET", f"/games/{table.game_id}/fragment/", b"", headers
        )
        if status == 200:
            player.looks.load(content.decode())

    def _report_looks(self, player: Player) -> None:
        """Tell the page's socket what it shows, as live.js does after a resync and after an
        answer that changed the pool (games/live/consumers.py): at most once every LOOKS_EVERY
        seconds, with what the page shows by then (the socket's allowance counts each message)."""
        if player.looks_due is not None:
            return  # the report on its way says what the page shows by then
        wait = player.looks_told + LOOKS_EVERY - time.monotonic()
        if wait > 0:
            player.looks_due = asyncio.get_running_loop().call_later(wait, self._looks_due, player)
            return
        player.looks_told = time.monotonic()
        message = {"type": "looks", "version": player.shown, "looks": player.looks.header()}
        player.socket.send(json.dumps(message))

    def _looks_due(self, player: Player) -> None:
        player.looks_due = None
        if self.playing:
            self._report_looks(player)

    async def _move(self, table: Table, player: Player, action: rules.Action) -> None:
        body = urlencode({**action.to_json(), "version": table.newest_seen}).encode()
        headers = {
            "Cookie": player.cookie,
            "X-CSRFToken": player.csrf,
            "HX-Request": "true",
            "X-Page-Version": str(player.shown),
            "X-Page-Id": player.page,
            "X-Page-Looks": player.looks.header(),
            "Content-Type": "application/x-www-form-urlencoded",
        }
        started = time.monotonic()
        try:
            status, answer_headers, content = await player.http.request(
                "POST", f"/games/{table.game_id}/act/", body, headers
            )
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:
            self.figures.error(f"connection: {type(error).__name__}")
            return
        answered = time.monotonic()
        if status == 409:
            self.figures.stale += 1
            await self._reload(table)
            return
        if status in (400, 403, 422):
            self.figures.refused += 1
            await self._reload(table)
            return
        version = _version_of(answer_headers, content)
        if status != 200 or version is None:
            self.figures.error(f"HTTP {status}")
            await self._reload(table)
            return
        self.figures.actions.append(answered - started)
        self.figures.answer_bytes += len(content)
        self.figures.answer_sizes.append(len(content))
        if answer_headers.get("x-game-parts") == "changed":
            self.figures.partial_answers += 1
        if version > player.shown:  # else a push got there first: live.js drops the answer
            html = content.decode()
            if answer_headers.get("x-game-parts") == "changed":
                player.looks.swap(html)
            else:
                player.looks.load(html)
            player.shown = version
            if CHANGES_POOL.search(html):
                self._report_looks(player)
        try:
            table.state = table.state.apply(action, player.seat)
        except rules.RuleError:
            await self._reload(table)  # the server did something this client did not see
        table.version = max(table.version, version)
        if table.state.is_terminal():
            table.over = True
            self.figures.games_ended += 1
        table.notify()
        others = [other for other in table.players if other is not player]
        self._measure(self._measure_delivery(table, others, version, started))
        if table.watchers:
            self.figures.watched_moves += 1
            self.figures.watcher_moves += len(table.watchers)
            self._measure(self._measure_delivery(table, table.watchers, version, answered))

    def _measure(self, coroutine) -> None:
        measuring = asyncio.create_task(coroutine)
        self.measuring.add(measuring)
        measuring.add_done_callback(self.measuring.discard)

    async def _measure_delivery(self, table, pages: list[Player], version: int, since: float):
        """The time from `since` until each of `pages` received `version` (or a later one)."""
        deadline = since + DELIVERY_TIMEOUT
        waiting = list(pages)
        watchers = bool(waiting) and waiting[0].watching
        times = self.figures.watcher_deliveries if watchers else self.figures.deliveries
        while waiting:
            for page in list(waiting):
                arrived = _first_at_least(page.arrivals, version)
                if arrived is not None:
                    times.append(arrived - since)
                    waiting.remove(page)
            if not waiting:
                return
            if time.monotonic() >= deadline:
                if watchers:
                    self.figures.watcher_undelivered += len(waiting)
                else:
                    self.figures.undelivered += len(waiting)
                return
            await table.wait_for_news(max(0.01, deadline - time.monotonic()))


def _loopback(host: str) -> bool:
    return host == "localhost" or host.startswith("127.")


def _version_of(headers: dict, content: bytes) -> int | None:
    if "x-game-version" in headers:
        return int(headers["x-game-version"])
    found = VERSION_IN_PAGE.search(content)
    return int(found.group(1)) if found else None


def _first_at_least(arrivals: dict, version: int) -> float | None:
    times = [at for number, at in arrivals.items() if number >= version]
    return min(times) if times else None


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of `values`, in milliseconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index] * 1000
