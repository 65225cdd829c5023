"""The players of the soak test (python -m benchmarks soak): the load benchmark's players, for a
long time.

Each seating is a few people who play game after game at one table until the time is up: the
first opens a table (in the database, as the benchmark does) and waits in its waiting room,
whose socket is told when the others have joined over HTTP and the game started; then every
player loads the game page and plays with its socket open, as in the benchmark
(benchmarks/loadtest/bench.py). Now and then a socket goes away, closed by its page (a close
frame, 1001) or cut (a network that drops: no frame at all), and comes back a moment later,
after loading the page again or with the version the page shows (`?v=`), as live.js does.

Beside them, every `close_every` seconds, a socket that the server must close: one for a game
that does not exist (4404), one on /ws/live/ without a session (4401), and one that floods the
server with messages (4408, the consumer's token bucket). The codes asked for and those the
server sent are counted.
"""

import asyncio
import itertools
import json
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .bench import VERSION_IN_PAGE, Bench, Figures, Player, Table
from .client import HTTPConnection, Refused, WebSocket

NO_SUCH_GAME, NOT_SIGNED_IN, TOO_MANY = 4404, 4401, 4408
GOING_AWAY = 1001  # what a browser sends when its page closes
# A game id that no table will have in a soak: far above any real one, within the route's.
NO_GAME_IDS = 10**15
FLOOD = 60  # messages sent at once by a flooding socket (the bucket holds 20)
ANSWER_TIMEOUT = 15.0  # seconds to wait for the server to close a socket, or start a table
HEARTBEAT = 25.0  # seconds between a visible page's pings (live.js), which keep its presence


@dataclass
class Person:
    """A signed-in player with the connections of a browser: one for moves and posts, one for
    page loads (which may happen while a move is in flight)."""

    user_id: int
    cookie: str
    csrf: str
    http: HTTPConnection
    pages: HTTPConnection


@dataclass
class SoakPlayer(Player):
    person: Person | None = None


@dataclass
class SoakFigures(Figures):
    games_started: int = 0
    games_unfinished: int = 0  # still in play when the time was up
    tables_not_started: int = 0
    page_loads: int = 0
    heartbeats: int = 0
    drops: Counter = field(default_factory=Counter)  # "closed" (a close frame) or "cut"
    reconnects: int = 0
    # The server closes asked for: code -> sockets opened for it; and (code asked, code got).
    asked: Counter = field(default_factory=Counter)
    closed: Counter = field(default_factory=Counter)


class Soak(Bench):
    """Play until `seconds` have passed; then close every socket.

    `new_game(creator_id, players)` opens a table and returns (game id, version);
    `load_game(game_id)` returns (state or None, version, {user id: seat}, whether in play);
    `reload_state(game_id)` returns (state, version), as the benchmark's. They run in threads.
    """

    def __init__(self, host, port, origin, seatings: list[list[Person]],
                 flooders: list[Person], *, think: float, seconds: float, drop_every: float,
                 close_every: float, new_game: Callable, load_game: Callable,
                 reload_state: Callable):  # fmt: skip
        super().__init__(host, port, origin, [], think=think, seconds=seconds,
                         reload_state=reload_state)  # fmt: skip
        self.seatings, self.flooders = seatings, flooders
        self.drop_every, self.close_every = drop_every, close_every
        self.new_game, self.load_game = new_game, load_game
        self.figures = SoakFigures()
        self.sockets: set[WebSocket] = set()  # open now (read by the sampler's thread)
        self.end = 0.0

    def stop(self) -> None:
        """End the load now (a signal's handler calls this): the tables in play end as if the
        time were up."""
        self.end = 0.0
        for table in self.tables:
            table.over = True
            table.notify()

    async def run(self) -> SoakFigures:
        self.figures.started = time.monotonic()
        self.end = self.figures.started + self.seconds
        await asyncio.gather(
            *(self._seating(people) for people in self.seatings), self._server_closes()
        )
        self.figures.finished = time.monotonic()
        if self.measuring:
            await asyncio.wait(list(self.measuring))
        for socket in list(self.sockets):
            self._close(socket, GOING_AWAY)
        for person in itertools.chain(*self.seatings, self.flooders):
            person.http.close()
            person.pages.close()
        return self.figures

    # --- sockets ---------------------------------------------------------------------------

    async def _connect(self, path: str, cookie: str | None) -> WebSocket:
        headers = [("Origin", self.origin)]
        if cookie is not None:
            headers.append(("Cookie", cookie))
        socket = await WebSocket.connect(self.host, self.port, path, headers)
        self.sockets.add(socket)
        return socket

    def _close(self, socket: WebSocket, code: int | None) -> None:
        self.sockets.discard(socket)
        socket.close(code)

    async def _receive_until_closed(self, socket: WebSocket) -> int | None:
        """Read what the server sends until it closes the socket; return its close code (None:
        no close frame, or nothing within the time-out)."""
        try:
            async with asyncio.timeout(ANSWER_TIMEOUT):
                while await socket.receive() is not None:
                    pass
        except TimeoutError:
            pass
        self._close(socket, None)
        return socket.close_code

    # --- one table after another -----------------------------------------------------------

    async def _seating(self, people: list[Person]) -> None:
        while time.monotonic() < self.end:
            try:
                table = await self._open_table(people)
                if table is not None:
                    await self._play_table(table)
                    continue
            except (OSError, Refused, asyncio.IncompleteReadError, ValueError) as error:
                self.figures.error(f"table: {type(error).__name__}")
            except Exception as error:  # a long run goes on; the count says it happened
                self.figures.error(f"table: {type(error).__name__}: {error}")
            await asyncio.sleep(self.think)

    def _post_headers(self, person: Person) -> dict:
        return {
            "Cookie": person.cookie,
            "X-CSRFToken": person.csrf,
            "Content-Type": "application/x-www-form-urlencoded",
        }

    async def _open_table(self, people: list[Person]) -> Table | None:
        creator = people[0]
        game_id, version = await asyncio.to_thread(self.new_game, creator.user_id, len(people))
        page = uuid.uuid4().hex[:16]
        lobby = await self._connect(
            f"/ws/games/{game_id}/?page={page}&lobby={version}", creator.cookie
        )
        for person in people[1:]:
            status, _, _ = await person.http.request(
                "POST", f"/games/{game_id}/join/", b"", self._post_headers(person)
            )
            if status != 302:  # the join answers with the game page's address
                self.figures.error(f"join: HTTP {status}")
        if not await self._told_of_start(lobby):
            self.figures.error("waiting room not told of the start")
        state, version, seat_of, playing = await asyncio.to_thread(self.load_game, game_id)
        if not playing:
            self.figures.tables_not_started += 1
            self._close(lobby, GOING_AWAY)
            return None
        self.figures.games_started += 1
        players = []
        for person in people:
            player = SoakPlayer(
                seat_of[person.user_id], person.cookie, person.csrf, http=person.http, person=person
            )
            shown = await self._load_page(player, game_id)
            if person is creator:  # the waiting room became the game page: it syncs
                player.page, player.socket = page, lobby
                lobby.send(json.dumps({"type": "sync", "version": shown or 0}))
            else:
                player.socket = await self._connect(
                    f"/ws/games/{game_id}/?page={player.page}&v={shown or 0}", person.cookie
                )
            player.seen = player.shown = shown or 0
            players.append(player)
        return Table(game_id=game_id, state=state, version=version, players=players)

    async def _told_of_start(self, lobby: WebSocket) -> bool:
        try:
            async with asyncio.timeout(ANSWER_TIMEOUT):
                while (text := await lobby.receive()) is not None:
                    message = json.loads(text)
                    if message.get("type") == "lobby" and message.get("started"):
                        return True
        except TimeoutError:
            pass
        return False

    async def _load_page(self, player: SoakPlayer, game_id: int) -> int | None:
        """Load the game page as a browser would; return the version it shows."""
        try:
            status, _, content = await player.person.pages.request(
                "GET", f"/games/{game_id}/", b"", {"Cookie": player.cookie}
            )
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:
            self.figures.error(f"page load: {type(error).__name__}")
            return None
        found = VERSION_IN_PAGE.search(content)
        if status != 200 or found is None:
            self.figures.error(f"page load: HTTP {status}")
            return None
        self.figures.page_loads += 1
        return int(found.group(1))

    async def _play_table(self, table: Table) -> None:
        self.tables.append(table)
        listeners = {id(p): asyncio.create_task(self._listen(table, p)) for p in table.players}
        droppers = [
            asyncio.create_task(self._drop_now_and_then(table, player, listeners))
            for player in table.players
        ] + [asyncio.create_task(self._beat(player)) for player in table.players]
        try:
            await asyncio.gather(*(self._play(table, p, self.end) for p in table.players))
        finally:
            for task in droppers:
                task.cancel()
            await asyncio.gather(*droppers, return_exceptions=True)
            self.tables.remove(table)
            if not table.state.is_terminal():
                self.figures.games_unfinished += 1
            for player in table.players:
                self._close(player.socket, GOING_AWAY)  # the players leave the page
            for task in listeners.values():
                task.cancel()

    async def _drop_now_and_then(self, table: Table, player: SoakPlayer, listeners: dict) -> None:
        """Now and then the player's socket goes away, and comes back a moment later."""
        while True:
            await asyncio.sleep(self.random.expovariate(1 / self.drop_every))
            if table.over or time.monotonic() >= self.end:
                return
            cut = self.random.random() < 0.5
            self._close(player.socket, None if cut else GOING_AWAY)
            self.figures.drops["cut" if cut else "closed"] += 1
            await asyncio.sleep(self.random.uniform(0.5, 3.0))
            if table.over or time.monotonic() >= self.end:
                return
            shown = player.shown
            if self.random.random() < 0.5:  # the page was reloaded
                shown = await self._load_page(player, table.game_id) or shown
            try:
                player.socket = await self._connect(
                    f"/ws/games/{table.game_id}/?page={player.page}&v={shown}", player.cookie
                )
            except (OSError, Refused, asyncio.IncompleteReadError) as error:
                self.figures.error(f"reconnect: {type(error).__name__}")
                return
            player.seen = player.shown = max(player.shown, shown)
            self.figures.reconnects += 1
            listeners[id(player)] = asyncio.create_task(self._listen(table, player))

    async def _beat(self, player: SoakPlayer) -> None:
        """The visible page's heartbeat: its presence, and the version its player has seen."""
        await asyncio.sleep(self.random.uniform(0, HEARTBEAT))
        while True:
            if player.socket in self.sockets:
                ping = {"type": "ping", "version": player.shown, "visible": True}
                player.socket.send(json.dumps(ping))
                self.figures.heartbeats += 1
            await asyncio.sleep(HEARTBEAT)

    # --- sockets the server closes ---------------------------------------------------------

    async def _server_closes(self) -> None:
        codes = itertools.cycle([NO_SUCH_GAME, NOT_SIGNED_IN, TOO_MANY])
        flooders = itertools.cycle(self.flooders)
        for number in itertools.count():
            await asyncio.sleep(self.close_every)
            if time.monotonic() >= self.end:
                return
            code = next(codes)
            self.figures.asked[code] += 1
            try:
                got = await self._make_server_close(code, next(flooders), number)
            except (OSError, Refused, asyncio.IncompleteReadError) as error:
                self.figures.error(f"socket for {code}: {type(error).__name__}")
                continue
            except Exception as error:  # a long run goes on; the count says it happened
                self.figures.error(f"socket for {code}: {type(error).__name__}: {error}")
                continue
            self.figures.closed[(code, got)] += 1

    async def _make_server_close(self, code: int, flooder: Person, number: int) -> int | None:
        if code == NO_SUCH_GAME:
            socket = await self._connect(f"/ws/games/{NO_GAME_IDS + number}/?v=0", flooder.cookie)
        elif code == NOT_SIGNED_IN:
            socket = await self._connect("/ws/live/", None)
        else:
            socket = await self._connect("/ws/live/", flooder.cookie)
            for _ in range(FLOOD):
                socket.send('{"type":"ping","visible":true}')
        return await self._receive_until_closed(socket)
