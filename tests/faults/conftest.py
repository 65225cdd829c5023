"""Fault tests: the platform's processes are killed and restarted while games are played.

Each test runs its own Redis (`RedisServer`: a private redis-server on a free port, which the
test may stop and start again, empty, on the same port), and daphne and Celery worker processes
(`Stack`) on the test database, as tests/e2e/conftest.py does. The subprocesses use
tests/faults/settings.py (the site's settings, with bots that act at once); the workers import
tests/faults/hooks.py, which keeps a journal of the tasks they run and can hold a task where the
test wants to kill it.

This process plays Celery beat: `Beat` runs the sweep (games.tasks.sweep) every interval, and the
sweep's tasks go to the test's Redis. It also makes the games (through games/play/actions/) and
checks every result against the rules engine (tests/faults/checks.py).
"""

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from kombu import pools

from games import tasks
from games.live import pushes as live
from games.models import Game, Seat
from games.play import actions
from infra.services import free_port, private_redis
from tests.conftest import server_environment
from tests.tasks.conftest import sending_to
from tests.tiers import starts_processes

from .clients import while_playing

logger = logging.getLogger(__name__)

# The settings of the test process that matter to the sweep it runs: a bot whose task was lost
# is woken after this long (production: 60 s, with a sweep a minute).
BOT_SWEEP_GRACE = timedelta(seconds=2)
BEAT_INTERVAL = 0.5
# Fast enough for a test, far within what any player would do.
ACTION_RATE_LIMIT = "100000/m"


def wait_until(condition, timeout: float, what: str, step: float = 0.05, explain=None):
    """Poll `condition()` until it returns something true, and return that. On a time-out the
    failure says `explain()` too (e.g. the state of the game)."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            detail = f"\n{explain()}" if explain is not None else ""
            raise AssertionError(f"{what} did not happen within {timeout:g} s{detail}")
        time.sleep(step)


def describe(game_id: int) -> str:
    """The game as the database has it, for a failure message."""
    game = Game.objects.get(pk=game_id)
    seats = list(game.seats.select_related("user").order_by("number"))
    lines = [
        f"game {game_id}: {game.status} {game.phase} v{game.version} current={game.current_seat}"
        f" pending={game.pending_draft} deadline={game.deadline} began={game.turn_started_at}"
    ]
    for seat in seats:
        lines.append(
            f"  seat {seat.number} {seat.user.username}: finished={seat.finished} "
            f"tray={seat.tray} score={seat.score} best={seat.best_score}"
        )
    for event in game.events.order_by("-number")[:8]:
        lines.append(f"  #{event.number} {event.kind} seat={event.seat} {event.cause}")
    return "\n".join(lines)


# --- Redis ---------------------------------------------------------------------------------------


class RedisServer:
    """A private redis-server (infra/services.py) that can be stopped, and started
    again, empty, on the same port: what a restart of an unpersisted Redis does."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._running: contextlib.ExitStack | None = None
        self.restarts = 0

    def start(self):
        assert self._running is None
        stack = contextlib.ExitStack()
        stack.enter_context(private_redis(self.port))
        self._running = stack

    def stop(self):
        if self._running is not None:
            self._running.close()
            self._running = None

    def restart(self):
        self.stop()
        self.start()
        self.restarts += 1

    def client(self):
        import redis

        return redis.Redis.from_url(self.url, socket_timeout=5)

    def time_passes(self, seconds: float) -> None:
        """Make Redis look `seconds` later: keys whose time to live ends by then are gone, and
        the messages a killed worker left unacknowledged are that much older (kombu's Redis
        transport delivers them again once they are older than its visibility timeout)."""
        client = self.client()
        for key in client.scan_iter(count=1000):
            ttl = client.pttl(key)
            if ttl < 0:
                continue
            if ttl <= seconds * 1000:
                client.delete(key)
            else:
                client.pexpire(key, int(ttl - seconds * 1000))
        for tag, score in client.zrange("unacked_index", 0, -1, withscores=True):
            client.zadd("unacked_index", {tag: score - seconds})
        client.close()

    def unacknowledged(self) -> int:
        client = self.client()
        try:
            return client.zcard("unacked_index")
        finally:
            client.close()


@pytest.fixture
@starts_processes("a redis-server of its own")
def fault_redis():
    server = RedisServer()
    server.start()
    yield server
    server.stop()


# --- processes -----------------------------------------------------------------------------------


class Process:
    """A daphne or Celery worker process, in a process group of its own so that a kill takes its
    children too (what an out-of-memory kill of a container or a crashed machine does)."""

    def __init__(self, name: str, command: list[str], env: dict, log_path: Path):
        self.name = name
        self.log_path = log_path
        with open(log_path, "w") as log:
            self.popen = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env={**env, "FAULTS_WORKER": name},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole process group: nothing gets to clean up. (Only while the leader has
        not been waited for: after that its id may belong to someone else's process.)"""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=10)


class Stack:
    """Start the platform's processes on the test database and the test's Redis."""

    def __init__(self, redis: RedisServer, directory: Path):
        self.redis = redis
        self.directory = directory
        self.processes: list[Process] = []
        self.count = 0
        self.env = server_environment(
            redis_url=redis.url,
            workdir=directory,
            DJANGO_SETTINGS_MODULE="tests.faults.settings",
            FAULTS_DIR=str(directory),
            ACTION_RATE_LIMIT=ACTION_RATE_LIMIT,
            EMAIL_URL="memorymail://",  # the emails are not what these tests look at
        )

    def _start(self, kind: str, command: list[str]) -> Process:
        self.count += 1
        name = f"{kind}{self.count}"
        process = Process(name, command, self.env, self.directory / f"{name}.log")
        self.processes.append(process)
        return process

    def worker(self, timeout: float = 60.0) -> Process:
        """Start a Celery worker as `manage.py up` does (prefork, 2 processes); wait until it
        is ready."""
        command = [
            sys.executable, "-m", "celery", "-A", "microchip_site", "worker",
            "--loglevel=INFO", "--concurrency=2", "--include=tests.faults.hooks",
            "--without-heartbeat", "--without-mingle", "--without-gossip",
            "--hostname", f"faults-{uuid.uuid4().hex[:8]}@%h",
        ]  # fmt: skip
        worker = self._start("worker", command)
        wait_until(
            lambda: " ready." in worker.log() or not worker.alive(),
            timeout,
            f"{worker.name} starting",
        )
        assert worker.alive(), (
            f"{worker.name} exited with {worker.popen.returncode}:\n{worker.log()[-3000:]}"
        )
        return worker

    def daphne(self, port: int, timeout: float = 60.0) -> Process:
        """Start daphne on `port`; wait until it answers /health/."""
        command = [
            sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
            "microchip_site.asgi:application",
        ]  # fmt: skip
        server = self._start("daphne", command)

        def answers():
            assert server.alive(), (
                f"{server.name} exited with {server.popen.returncode}:\n{server.log()[-3000:]}"
            )
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2):
                    return True
            except OSError:
                return False

        wait_until(answers, timeout, f"{server.name} answering", step=0.1)
        return server

    def journal(self) -> list[dict]:
        """The workers' journal of tasks (tests/faults/hooks.py), without a last line that is
        still being written."""
        path = self.directory / "journal"
        if not path.exists():
            return []
        complete = path.read_text().rpartition("\n")[0]
        return [json.loads(line) for line in complete.splitlines() if line.strip()]

    def hold(self, when: str, task: str, *, only_due: bool = False) -> None:
        """Make the next run of `task` wait to be killed (tests/faults/hooks.py); with
        `only_due`, the next bot's move for its game's version now."""
        (self.directory / f"hold-{when}-{task}").write_text("due" if only_due else "")

    def held(self, when: str, task: str) -> dict | None:
        """The journal's entry of the last task held there, if any."""
        held = [e for e in self.journal() if e["event"] == f"held-{when}" and e["task"] == task]
        return held[-1] if held else None

    def release(self, held: dict) -> None:
        """Let a held task go on (if its worker is still alive)."""
        path = self.directory / f"{held['event']}-{held['task']}-{held['id']}"
        path.unlink(missing_ok=True)

    def close(self):
        """Kill every process still running (they and their Redis are thrown away)."""
        for process in self.processes:
            process.kill()


@pytest.fixture
@starts_processes("daphne and Celery workers")
def stack(transactional_db, fault_redis, tmp_path, settings):
    """The test's processes; they are stopped before the test database is flushed."""
    settings.BOT_MOVE_DELAY = 0
    settings.BOT_SWEEP_GRACE = BOT_SWEEP_GRACE
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [fault_redis.url], "prefix": "microchip:asgi"},
        }
    }
    live._paused_until = 0.0
    live._held.clear()
    processes = Stack(fault_redis, tmp_path)
    # kombu keeps its connection pools by broker URL for the whole process, and `sending_to`
    # closes them on the way out: a test whose free port an earlier test's Redis had would get
    # a closed pool. Start and end with none.
    pools.reset()
    try:
        with sending_to(fault_redis.url):
            yield processes
    finally:
        processes.close()
        pools.reset()
        logger.info("the logs of the test's processes and the task journal: %s", tmp_path)


# --- beat ----------------------------------------------------------------------------------------


class Beat:
    """Run the sweep in a thread of this process every `interval` seconds, as Celery beat and a
    worker do every GAMES_SWEEP_SECONDS; its tasks go to the broker. `before` runs first each
    time (a test's clock). A sweep that fails (Redis is down) is logged; the next one runs."""

    def __init__(self, interval: float = BEAT_INTERVAL, before=None):
        self.interval = interval
        self.before = before
        self.runs = self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="beat", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self):
        try:
            while not self._stop.wait(self.interval):
                try:
                    if self.before is not None:
                        self.before()
                    tasks.sweep()
                    self.runs += 1
                except Exception as error:
                    self.failures += 1
                    logger.info("beat: the sweep failed: %r", error)
        finally:
            connection.close()


# --- a table of two people and a bot ------------------------------------------------------------


@pytest.fixture
def table(make_player):
    """Return a function that starts a rated game of two people and an easy bot, and returns
    (game, {seat number: user})."""

    def start():
        ada, brian = make_player("ada"), make_player("brian")
        game = actions.create_game(
            creator=ada, player_count=3, time_per_move=timedelta(days=1), bots=("easy",)
        )
        actions.join_game(game_id=game.pk, user=brian)
        game.refresh_from_db()
        assert game.is_playing
        users = {seat.number: seat.user for seat in game.seats.select_related("user")}
        assert sum(1 for user in users.values() if user.bot_level) == 1
        return game, users

    return start


def play_on_to_the_end(game, movers, socket, connection: int, *, after: int) -> None:
    """Let the players move on after a fault: the page's `connection` gets a push past version
    `after`, and the game ends and is analysed; then the players stop."""
    wait_until(
        while_playing(
            movers, lambda: [m for m in socket.received(connection) if m["version"] > after]
        ),
        20,
        "a push after the reconnection",
    )
    wait_until(
        while_playing(
            movers,
            lambda: (
                Game.objects.filter(pk=game.pk, status=Game.Status.ENDED).exists()
                and not Seat.objects.filter(game=game, best_score=None).exists()
            ),
        ),
        60,
        "the game ending and being analysed",
        explain=lambda: describe(game.pk),
    )
    for mover in movers:
        mover.join(10)
