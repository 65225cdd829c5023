"""Whole games played at once over HTTP and websockets, as players' pages would play them.

Each table is one game; each of its players has a keep-alive HTTP connection and the page's
websocket. A player thinks (a random time around `think`), then makes the move a sensible
player would (the rules package's greedy player) through the act endpoint, as the page's htmx
does. The players of a table share one copy of the game's state (games/rules), so planning
costs the server nothing: each accepted move is applied to it, and it is read again from the
database only when the server did something on its own (taking the last tile of a column) or
refused a move.

Measured, per accepted move: the HTTP round trip, and for every other player's socket of the
table the time from sending the request to that socket receiving the move's version (a push or
a resync). Errors are answers other than 200/409, connection failures, and pushes that never
came.
"""

import asyncio
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


@dataclass
class Table:
    game_id: int
    state: rules.GameState
    version: int
    players: list[Player]
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
    started: float = 0.0
    finished: float = 0.0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Bench:
    """Play every table's game to its end (or until `seconds` have passed)."""

    def __init__(self, host, port, origin, tables, *, think, seconds, reload_state):
        self.host, self.port, self.origin = host, port, origin
        self.tables, self.think, self.seconds = tables, think, seconds
        # reload_state(game_id) -> (GameState, version): the game as the database holds it.
        self.reload_state = reload_state
        self.figures = Figures()
        self.random = random.Random(20261202)
        self.measuring: set[asyncio.Task] = set()

    async def run(self) -> Figures:
        for table in self.tables:
            for player in table.players:
                player.http = HTTPConnection(self.host, self.port)
                await self._load_page(table, player)
                looks = quote(player.looks.header())
                path = f"/ws/games/{table.game_id}/?page={player.page}&v={table.version}"
                path += f"&looks={looks}"
                headers = [("Cookie", player.cookie), ("Origin", self.origin)]
                player.socket = await WebSocket.connect(self.host, self.port, path, headers)
                player.seen = player.shown = table.version
        listeners = [
            asyncio.create_task(self._listen(table, player))
            for table in self.tables
            for player in table.players
        ]
        self.figures.started = time.monotonic()
        end = self.figures.started + self.seconds
        await asyncio.gather(
            *(self._play(table, player, end) for table in self.tables for player in table.players)
        )
        self.figures.finished = time.monotonic()
        if self.measuring:  # the last moves' pushes
            await asyncio.wait(list(self.measuring))
        for task in listeners:
            task.cancel()
        for table in self.tables:
            for player in table.players:
                player.socket.close()
                player.http.close()
        return self.figures

    async def _listen(self, table: Table, player: Player) -> None:
        while True:
            text = await player.socket.receive()
            if text is None:
                return
            now = time.monotonic()
            if not CARRIES_VERSION.search(text[:80]):
                continue
            found = VERSION_IN_PUSH.search(text[:200])
            if not found:
                continue
            version = int(found.group(1))
            self.figures.pushes += 1
            self.figures.push_bytes += len(text)
            self.figures.push_sizes.append(len(text))
            player.arrivals.setdefault(version, now)
            player.seen = max(player.seen, version)
            if version > player.shown:  # as live.js: what the page shows already is skipped
                message = json.loads(text)
                if message["type"] == "resync":
                    player.looks.load(message["html"])
                    self._report_looks(player, version)
                else:
                    player.looks.swap(message["html"])
                player.shown = version
            table.notify()

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

    def _report_looks(self, player: Player, version: int) -> None:
        """Tell the page's socket what it shows, as live.js does after a resync and after an
        answer that changed the pool (games/live/consumers.py)."""
        message = {"type": "looks", "version": version, "looks": player.looks.header()}
        player.socket.send(json.dumps(message))

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
                self._report_looks(player, version)
        try:
            table.state = table.state.apply(action, player.seat)
        except rules.RuleError:
            await self._reload(table)  # the server did something this client did not see
        table.version = max(table.version, version)
        if table.state.is_terminal():
            table.over = True
            self.figures.games_ended += 1
        table.notify()
        measuring = asyncio.create_task(self._measure_delivery(table, player, version, started))
        self.measuring.add(measuring)
        measuring.add_done_callback(self.measuring.discard)

    async def _measure_delivery(self, table, actor: Player, version: int, started: float):
        others = [player for player in table.players if player is not actor]
        deadline = started + DELIVERY_TIMEOUT
        waiting = list(others)
        while waiting:
            for player in list(waiting):
                arrived = _first_at_least(player.arrivals, version)
                if arrived is not None:
                    self.figures.deliveries.append(arrived - started)
                    waiting.remove(player)
            if not waiting:
                return
            if time.monotonic() >= deadline:
                self.figures.undelivered += len(waiting)
                return
            await table.wait_for_news(max(0.01, deadline - time.monotonic()))


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
