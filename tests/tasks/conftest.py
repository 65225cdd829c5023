"""Fixtures for the timed work: players and games (shared with tests/games), a simulated clock,
and a real Celery worker on the real Redis and the test database."""

import contextlib
import os
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone
from kombu import pools

from microchip_site.celery import app
from tests.conftest import database_url
from tests.tiers import starts_processes

# The worker tests use this database number of the run's Redis, so that no other worker of the
# session (the browser tests start one) takes their tasks.
WORKER_REDIS_DB = 14


@pytest.fixture
def clock():
    """A simulated clock that starts now and moves only when told: clock.advance(timedelta)."""
    with time_machine.travel(timezone.now(), tick=False) as traveller:

        class Clock:
            def now(self):
                return timezone.now()

            def advance(self, delta: timedelta):
                traveller.shift(delta)

            def to(self, moment):
                traveller.move_to(moment)

        yield Clock()


def with_database(url: str, number: int) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{number}"))


@contextlib.contextmanager
def sending_to(broker_url: str):
    """Make this process queue tasks on `broker_url` instead of running them eagerly."""
    conf = app.conf
    saved = conf.task_always_eager, conf.broker_url
    conf.task_always_eager, conf.broker_url = False, broker_url
    app._after_fork()  # forget any connection pool made for the old broker
    try:
        yield
    finally:
        if app._pool is not None:
            app._pool.force_close_all()
        # kombu keeps its pools by broker URL for the whole process: forget the closed one, so
        # that the next test sending to the same broker makes a new one.
        pools.reset()
        app._after_fork()
        conf.task_always_eager, conf.broker_url = saved


class Worker:
    def __init__(self, process, log_path, broker_url):
        self.process = process
        self.log_path = log_path
        self.broker_url = broker_url

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture
@starts_processes("a Celery worker")
def celery_worker_process(transactional_db, redis_url, tmp_path):
    """Start `celery -A microchip_site worker --pool=solo` on the test database and the run's
    Redis; yield a function that starts it with extra environment (e.g. EMAIL_URL), on its own
    database of that Redis or on `redis_db` (the one of web processes whose tasks it runs), for
    the games' queue or for `queues` ("celery,engine")."""
    started = []

    def start(redis_db: int = WORKER_REDIS_DB, queues: str = "", **extra_env) -> Worker:
        broker = with_database(redis_url, redis_db)
        log_path = tmp_path / "worker.log"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "microchip_site.settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": broker,
            "SECRET_KEY": settings.SECRET_KEY,
            "SITE_URL": settings.SITE_URL,
            "MICROCHIP_VAR_DIR": str(tmp_path),
            "PYTHONUNBUFFERED": "1",
            **extra_env,
        }
        command = [
            sys.executable, "-m", "celery", "-A", "microchip_site", "worker",
            "--pool=solo", "--loglevel=INFO", "--without-heartbeat", "--without-mingle",
            "--without-gossip", "--hostname", f"test-{uuid.uuid4().hex[:8]}@%h",
        ]  # fmt: skip
        if queues:  # else the games' queue only, as `up`'s game workers
            command += ["--queues", queues]
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                command, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        worker = Worker(process, log_path, broker)
        started.append(worker)
        _wait_until_ready(worker)
        return worker

    yield start
    for worker in started:
        worker.process.terminate()
        try:
            worker.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            worker.process.kill()


def _wait_until_ready(worker: Worker, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.process.poll() is not None:
            raise RuntimeError(f"the Celery worker exited:\n{worker.log()[-3000:]}")
        if " ready." in worker.log():
            return
        time.sleep(0.1)
    raise RuntimeError(f"the Celery worker did not start:\n{worker.log()[-3000:]}")


def wait_until(condition, timeout: float = 30.0, what: str = "the condition"):
    """Poll `condition()` until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {timeout} s")
