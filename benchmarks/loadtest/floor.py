"""The floor (benchmarks/floor/): the least a Microchip move can cost on the platform's stack,
started beside the platform and played with the same load shape, so that `benchmarks load --floor`
can print the platform's cost per move against it (issue 21).

`Floor` starts the floor's servers (its launch.py: 2 daphne on one socket and gunicorn with 6
workers, and nginx in front when the machine has one), on the platform's PostgreSQL server (a
database of its own) and Redis server (a database number of its own), makes its players and
games (its floor_fixtures command), and stops what it started. `FloorBench` plays the floor's
move in every game as the platform's benchmark plays a real one: each player thinks a random
time around `think`, posts the move over a keep-alive connection, and every other player's
socket gets the push; with the platform's own small HTTP and websocket client (client.py).
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
                 *, nginx: bool = True, web: int = 2, http: int = 6):  # fmt: skip
        self.workdir, self.database, self.redis_url = workdir, database, redis_url
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
        }

    def manage(self, *args: str) -> None:
        subprocess.run([sys.executable, "manage.py", *args], cwd=FLOOR_DIR, env=self.env,
                       check=True, stdout=subprocess.DEVNULL)  # fmt: skip

    def prepare(self, games: int, players: int) -> list[dict]:
        """Make the floor's database (if need be), its tables, and its players and games."""
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
                    "--out", str(out))  # fmt: skip
        tables = json.loads(out.read_text())
        out.unlink()
        return tables

    def start(self) -> None:
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
        for port in {self.port, self.web_port, self.http_port}:
            _wait_for_port(port, 30)

    def roots(self) -> list[psutil.Process]:
        """The trees this process started: the launcher's and nginx's."""
        found = [psutil.Process(self.launcher.pid)] if self.launcher else []
        return found + ([self.nginx_master] if self.nginx_master else [])

    def stop(self) -> None:
        if self.nginx_master is not None:
            prefix = self.workdir / "nginx"
            subprocess.run([self.nginx_binary, "-p", str(prefix), "-c",
                            str(prefix / "nginx.conf"), "-s", "quit"], check=False)  # fmt: skip
            self.nginx_master = None
        if self.launcher is not None and self.launcher.poll() is None:
            self.launcher.send_signal(signal.SIGTERM)
            try:
                self.launcher.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.launcher.pid, signal.SIGKILL)
        self.launcher = None


def _wait_for_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"the floor did not start listening on port {port}")


@dataclass
class FloorFigures:
    actions: list[float] = field(default_factory=list)
    deliveries: list[float] = field(default_factory=list)
    answer_sizes: list[int] = field(default_factory=list)
    push_sizes: list[int] = field(default_factory=list)
    errors: int = 0
    undelivered: int = 0
    started: float = 0.0
    finished: float = 0.0


class FloorBench:
    """Play the floor's move in every game for `seconds`, 2 players or more a game."""

    def __init__(self, host: str, port: int, tables: list[dict], *, think: float, seconds: float):
        self.host, self.port, self.origin = host, port, f"http://{host}:{port}"
        self.tables, self.think, self.seconds = tables, think, seconds
        self.figures = FloorFigures()
        self.random = random.Random(20261202)
        self.news = asyncio.Condition()
        self.measuring: set[asyncio.Task] = set()

    async def run(self) -> FloorFigures:
        for table in self.tables:
            for player in table["players"]:
                player["page"] = uuid.uuid4().hex[:16]
                player["arrivals"] = {}
                player["http"] = HTTPConnection(self.host, self.port)
                path = f"/ws/games/{table['game']}/?page={player['page']}"
                headers = [("Cookie", player["cookie"]), ("Origin", self.origin)]
                player["socket"] = await WebSocket.connect(self.host, self.port, path, headers)
        everyone = [(table, player) for table in self.tables for player in table["players"]]
        listeners = [asyncio.create_task(self.listen(player)) for _, player in everyone]
        self.figures.started = time.monotonic()
        end = self.figures.started + self.seconds
        await asyncio.gather(*(self.play(table, player, end) for table, player in everyone))
        self.figures.finished = time.monotonic()
        if self.measuring:
            await asyncio.wait(list(self.measuring))
        for listener in listeners:
            listener.cancel()
        for _, player in everyone:
            player["socket"].close(1001)
            player["http"].close()
        return self.figures

    async def listen(self, player: dict) -> None:
        while (text := await player["socket"].receive()) is not None:
            found = VERSION_IN_PUSH.search(text[:80])
            if not found:
                continue
            self.figures.push_sizes.append(len(text))
            player["arrivals"].setdefault(int(found.group(1)), time.monotonic())
            async with self.news:
                self.news.notify_all()

    async def play(self, table: dict, player: dict, end: float) -> None:
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
            self.figures.actions.append(time.monotonic() - started)
            self.figures.answer_sizes.append(len(content))
            others = [other for other in table["players"] if other is not player]
            task = asyncio.create_task(self.delivered(others, int(version), started))
            self.measuring.add(task)
            task.add_done_callback(self.measuring.discard)

    async def delivered(self, waiting: list[dict], version: int, started: float) -> None:
        deadline = started + DELIVERY_TIMEOUT
        while waiting:
            for other in list(waiting):
                if version in other["arrivals"]:
                    self.figures.deliveries.append(other["arrivals"][version] - started)
                    waiting.remove(other)
            left = deadline - time.monotonic()
            if not waiting:
                return
            if left <= 0:
                self.figures.undelivered += len(waiting)
                return
            async with self.news:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.news.wait(), left)
