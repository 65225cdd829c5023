"""The floor (benchmarks/floor/): the least a Microchip move can cost on the platform's stack,
started beside the platform and played with the same load shape, so that `benchmarks load --floor`
can print the platform's cost per move against it (issue 21).

`Floor` starts the floor's servers (its launch.py: 2 daphne on one socket and gunicorn with 6
workers, and nginx in front when the machine has one), on the platform's PostgreSQL server (a
database of its own) and Redis server (a database number of its own), makes its players, games
and watchers (its floor_fixtures command), and stops what it started; `html` chooses the floor
(its FLOOR_HTML: "template", the floor since issue 36, or "fixed", issue 21's). `FloorBench`
plays the floor's move in every game as the platform's benchmark plays a real one: each player
thinks a random time around `think`, posts the move over a keep-alive connection, and every
other player's socket and every watcher's gets the push; with the platform's own small HTTP and
websocket client (client.py).
"""

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from django.core.management.base import CommandError

from infra.launcher import can_listen

from .client import HTTPConnection, WebSocket

FLOOR_DIR = Path(__file__).resolve().parents[1] / "floor"
VERSION_IN_PUSH = re.compile(r'"version":(\d+)')
DELIVERY_TIMEOUT = 5.0
NGINX_CONF = """worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path body; proxy_temp_path proxy; fastcgi_temp_path fastcgi;
    uwsgi_temp_path uwsgi; scgi_temp_path scgi;
    upstream floor_http {{ server 127.0.0.1:{http}; }}
    upstream floor_live {{ server 127.0.0.1:{web}; }}
    server {{
        listen 127.0.0.1:{port};
        location /ws/ {{
            proxy_pass http://floor_live;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_set_header Host $http_host;
            proxy_read_timeout 120s;
        }}
        location / {{
            proxy_pass http://floor_http;
            proxy_set_header Host $http_host;
        }}
    }}
}}
"""


@dataclass
class FloorDatabase:
    host: str
    port: int
    name: str
    user: str = "postgres"
    password: str = ""


class Floor:
    """The floor's servers on `port` (nginx; daphne on port+1, gunicorn on port+2, or daphne
    on `port` and gunicorn on port+1 without nginx), started and stopped by this process."""

    def __init__(self, workdir: Path, database: FloorDatabase, redis_url: str, port: int,
                 *, nginx: bool = True, web: int = 2, http: int = 6,
                 html: str = "template"):  # fmt: skip
        self.workdir, self.database, self.redis_url = workdir, database, redis_url
        self.html = html
        self.nginx_binary = shutil.which("nginx") if nginx else None
        self.port = port
        offset = 1 if self.nginx_binary else 0
        self.web_port, self.http_port = port + offset, port + offset + 1
        self.web, self.http = web, http
        self.launcher: subprocess.Popen | None = None
        self.nginx_master: psutil.Process | None = None

    @property
    def env(self) -> dict:
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "floorsite.settings",
            "FLOOR_PG_HOST": self.database.host,
            "FLOOR_PG_PORT": str(self.database.port),
            "FLOOR_PG_NAME": self.database.name,
            "FLOOR_PG_USER": self.database.user,
            "FLOOR_PG_PASSWORD": self.database.password,
            "FLOOR_REDIS_URL": self.redis_url,
            "FLOOR_WEB_PORT": str(self.web_port),
            "FLOOR_HTTP_PORT": str(self.http_port),
            "WEB": str(self.web),
            "HTTP": str(self.http),
            "FLOOR_HTML": self.html,
        }

    def manage(self, *args: str) -> None:
        subprocess.run([sys.executable, "manage.py", *args], cwd=FLOOR_DIR, env=self.env,
                       check=True, stdout=subprocess.DEVNULL)  # fmt: skip

    def prepare(
        self, games: int, players: int, watchers: int = 0, watch_one: int = 0
    ) -> list[dict]:
        """Make the floor's database (if need be), its tables, and its players and games, with
        `watchers` signed-in viewers of each game and `watch_one` more of the first."""
        import psycopg  # the platform's own driver
        from psycopg import sql

        db = self.database
        with psycopg.connect(host=db.host, port=db.port, user=db.user, password=db.password,
                             dbname="postgres", autocommit=True) as connection:  # fmt: skip
            found = connection.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [db.name]
            ).fetchone()
            if not found:
                connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db.name)))
        self.manage("migrate", "--verbosity", "0")
        self.manage("floor_fixtures", "--delete", "--out", "-")
        self.workdir.mkdir(parents=True, exist_ok=True)
        out = self.workdir / f"floor-fixtures-{uuid.uuid4().hex[:8]}.json"
        self.manage("floor_fixtures", "--games", str(games), "--players", str(players),
                    "--watchers", str(watchers), "--watch-one", str(watch_one),
                    "--out", str(out))  # fmt: skip
        tables = json.loads(out.read_text())
        out.unlink()
        return tables

    def start(self) -> None:
        for port in (self.port, self.web_port, self.http_port):
            try:
                can_listen("127.0.0.1", port)
            except CommandError as error:
                raise RuntimeError(f"{error}: give the floor another port") from None
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = (self.workdir / "floor.log").open("ab")  # daphne logs every socket
        self.launcher = subprocess.Popen(
            [sys.executable, "launch.py"],
            cwd=FLOOR_DIR,
            env=self.env,
            start_new_session=True,
            stdout=log,
            stderr=log,
        )
        log.close()
        if self.nginx_binary:
            prefix = self.workdir / "nginx"
            prefix.mkdir(parents=True, exist_ok=True)
            conf = prefix / "nginx.conf"
            conf.write_text(NGINX_CONF.format(port=self.port, web=self.web_port,
                                              http=self.http_port))  # fmt: skip
            subprocess.run([self.nginx_binary, "-p", str(prefix), "-c", str(conf)], check=True)
            pid = int((prefix / "nginx.pid").read_text())
            self.nginx_master = psutil.Process(pid)
        for port in (self.web_port, self.http_port, self.port):
            self._wait_for_port(port, 30)

    def _wait_for_port(self, port: int, timeout: float) -> None:
        """Wait until something listens on `port`; fail at once, with what the floor's servers
        said, if the launcher or nginx has ended meanwhile."""
        deadline = time.monotonic() + timeout
        while not _listening(port):
            if self.launcher is not None and self.launcher.poll() is not None:
                raise RuntimeError(f"the floor's launcher ended (exit code "
                                   f"{self.launcher.returncode}) before port {port} listened:\n"
                                   + _tail(self.workdir / "floor.log"))  # fmt: skip
            if self.nginx_master is not None and not self.nginx_master.is_running():
                raise RuntimeError(f"the floor's nginx ended before port {port} listened:\n"
                                   + _tail(self.workdir / "nginx" / "error.log"))  # fmt: skip
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the floor did not start listening on port {port} in {timeout:g} s:\n"
                    + _tail(self.workdir / "floor.log")
                    + _tail(self.workdir / "nginx" / "error.log")
                )
            time.sleep(0.2)

    def roots(self) -> list[psutil.Process]:
        """The trees this process started: the launcher's and nginx's."""
        found = [psutil.Process(self.launcher.pid)] if self.launcher else []
        return found + ([self.nginx_master] if self.nginx_master else [])

    def stop(self) -> None:
        if self.nginx_master is not None:
            prefix = self.workdir / "nginx"
            subprocess.run([self.nginx_binary, "-p", str(prefix), "-c",
                            str(prefix / "nginx.conf"), "-s", "quit"], check=False,
                           stderr=subprocess.DEVNULL)  # fmt: skip
            with contextlib.suppress(psutil.Error):  # its port free again before a restart
                self.nginx_master.wait(15)
            self.nginx_master = None
        if self.launcher is not None and self.launcher.poll() is None:
            self.launcher.send_signal(signal.SIGTERM)
            try:
                self.launcher.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.launcher.pid, signal.SIGKILL)
        self.launcher = None


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)  # a connection that hangs is an answer too: not yet
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _tail(log: Path, lines: int = 20) -> str:
    if not log.exists():
        return f"({log} was not written)\n"
    return "".join(log.read_text(errors="replace").splitlines(keepends=True)[-lines:])


@dataclass
class FloorFigures:
    actions: list[float] = field(default_factory=list)
    deliveries: list[float] = field(default_factory=list)
    answer_sizes: list[int] = field(default_factory=list)
    push_sizes: list[int] = field(default_factory=list)
    errors: int = 0
    undelivered: int = 0
    watchers: int = 0
    watched_moves: int = 0
    watcher_moves: int = 0  # each watched move counted once per watcher of its table
    watcher_deliveries: list[float] = field(default_factory=list)  # seconds, answer to receipt
    watcher_undelivered: int = 0
    watcher_bytes: int = 0
    started: float = 0.0
    finished: float = 0.0


class FloorBench:
    """Play the floor's move in every game for `seconds`, 2 players or more a game, with the
    first `watchers` of each table's watchers and `watch_one` more of the first table's."""

    def __init__(self, host: str, port: int, tables: list[dict], *, think: float, seconds: float,
                 watchers: int = 0, watch_one: int = 0, on_play=None):  # fmt: skip
        self.host, self.port, self.origin = host, port, f"http://{host}:{port}"
        self.tables, self.think, self.seconds = tables, think, seconds
        self.watching = [
            table.get("watchers", [])[: watchers + (watch_one if number == 0 else 0)]
            for number, table in enumerate(tables)
        ]
        self.on_play = on_play
        self.figures = FloorFigures()
        self.random = random.Random(20261202)
        self.news = asyncio.Condition()
        self.measuring: set[asyncio.Task] = set()
        self.playing = False

    async def run(self) -> FloorFigures:
        pages = []
        for table, watching in zip(self.tables, self.watching, strict=True):
            for page in [*table["players"], *watching]:
                page["page"] = uuid.uuid4().hex[:16]
                page["arrivals"] = {}
                path = f"/ws/games/{table['game']}/?page={page['page']}"
                headers = [("Cookie", page["cookie"]), ("Origin", self.origin)]
                page["socket"] = await WebSocket.connect(self.host, self.port, path, headers)
                pages.append(page)
            for player in table["players"]:
                player["http"] = HTTPConnection(self.host, self.port)
        self.figures.watchers = sum(map(len, self.watching))
        watchers = {id(page) for watching in self.watching for page in watching}
        listeners = [asyncio.create_task(self.listen(page, id(page) in watchers)) for page in pages]
        if self.on_play is not None:
            self.on_play()
        self.playing = True
        self.figures.started = time.monotonic()
        end = self.figures.started + self.seconds
        await asyncio.gather(
            *(
                self.play(table, player, watching, end)
                for table, watching in zip(self.tables, self.watching, strict=True)
                for player in table["players"]
            )
        )
        self.figures.finished = time.monotonic()
        if self.measuring:
            await asyncio.wait(list(self.measuring))
        self.playing = False
        for listener in listeners:
            listener.cancel()
        for page in pages:
            page["socket"].close(1001)
            if "http" in page:
                page["http"].close()
        return self.figures

    async def listen(self, page: dict, watcher: bool) -> None:
        while (text := await page["socket"].receive()) is not None:
            if watcher and self.playing:
                self.figures.watcher_bytes += len(text)
            found = VERSION_IN_PUSH.search(text[:80])
            if not found:
                continue
            if not watcher:
                self.figures.push_sizes.append(len(text))
            page["arrivals"].setdefault(int(found.group(1)), time.monotonic())
            async with self.news:
                self.news.notify_all()

    async def play(self, table: dict, player: dict, watching: list[dict], end: float) -> None:
        await asyncio.sleep(self.random.uniform(0, self.think))
        body = b"tile=R3a&space=7"
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-CSRFToken": player["csrf"],
            "Cookie": player["cookie"],
            "X-Page-Id": player["page"],
            "HX-Request": "true",
        }
        while time.monotonic() < end:
            await asyncio.sleep(self.random.uniform(0.5, 1.5) * self.think)
            if time.monotonic() >= end:
                return
            started = time.monotonic()
            try:
                status, answer_headers, content = await player["http"].request(
                    "POST", f"/games/{table['game']}/move/", body, headers
                )
            except OSError:
                self.figures.errors += 1
                continue
            version = answer_headers.get("x-game-version")
            if status != 200 or version is None:
                self.figures.errors += 1
                continue
            answered = time.monotonic()
            self.figures.actions.append(answered - started)
            self.figures.answer_sizes.append(len(content))
            others = [other for other in table["players"] if other is not player]
            self.measure(self.delivered(others, int(version), started))
            if watching:
                self.figures.watched_moves += 1
                self.figures.watcher_moves += len(watching)
                self.measure(self.delivered(list(watching), int(version), answered, watchers=True))

    def measure(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self.measuring.add(task)
        task.add_done_callback(self.measuring.discard)

    async def delivered(self, waiting: list[dict], version: int, since: float,
                        watchers: bool = False) -> None:  # fmt: skip
        deadline = since + DELIVERY_TIMEOUT
        times = self.figures.watcher_deliveries if watchers else self.figures.deliveries
        while waiting:
            for other in list(waiting):
                if version in other["arrivals"]:
                    times.append(other["arrivals"][version] - since)
                    waiting.remove(other)
            left = deadline - time.monotonic()
            if not waiting:
                return
            if left <= 0:
                if watchers:
                    self.figures.watcher_undelivered += len(waiting)
                else:
                    self.figures.undelivered += len(waiting)
                return
            async with self.news:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.news.wait(), left)
