"""Fixtures for the scale-out tests: bots and a real Celery worker (shared with their packages),
and several daphne processes serving the test database, as production runs them."""

import contextlib
import subprocess
import sys
import time
import urllib.request

import pytest
from django.conf import settings

from infra.services import free_port
from tests.bots.conftest import bot  # noqa: F401 (fixture)
from tests.conftest import server_environment
from tests.tasks.conftest import celery_worker_process, with_database  # noqa: F401 (fixture)
from tests.tiers import starts_processes

# The daphne processes here use this database number of the run's Redis (channel layer, cache),
# so that no other server of the session (the browser tests start one) shares their groups.
SERVERS_REDIS_DB = 13


class Servers:
    def __init__(self, urls, processes, log_path):
        self.urls = urls
        self.processes = processes
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


DAPHNE = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", "{port}",
          "microchip_site.asgi:application"]  # fmt: skip
GUNICORN = [sys.executable, "-m", "gunicorn", "--bind", "127.0.0.1:{port}", "--workers", "1",
            "microchip_site.wsgi:application"]  # fmt: skip


@pytest.fixture(scope="module", params=["daphne", "gunicorn"])
@starts_processes("two web processes")
def two_servers(request, django_db_setup, django_db_blocker, redis_url, tmp_path_factory):
    """Two web processes on two ports, with the same test database, Redis and SECRET_KEY: a
    daphne, and a second daphne or a gunicorn (HTTP only: `manage.py up --http`)."""
    second = DAPHNE if request.param == "daphne" else GUNICORN
    with web_processes([DAPHNE, second], redis_url, tmp_path_factory) as servers:
        yield servers


@pytest.fixture(scope="module")
@starts_processes("daphne")
def one_daphne(django_db_setup, django_db_blocker, redis_url, tmp_path_factory):
    """One daphne (HTTP and websockets) on the test database, as `manage.py up` runs it."""
    with web_processes([DAPHNE], redis_url, tmp_path_factory) as servers:
        yield servers


@contextlib.contextmanager
def web_processes(commands, redis_url, tmp_path_factory):
    """Start one web process per command, each on a port of its own; stop them at the end."""
    workdir = tmp_path_factory.mktemp("scale-servers")
    ports = [free_port() for _ in commands]
    env = server_environment(
        redis_url=with_database(redis_url, SERVERS_REDIS_DB),
        workdir=workdir,
        site_url=f"http://127.0.0.1:{ports[0]}",
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=settings.BASE_DIR,
        env=env,
        check=True,
    )
    log_path = workdir / "servers.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed when the processes have stopped
    processes = [
        subprocess.Popen(
            [part.format(port=port) for part in command],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=log,
        )
        for command, port in zip(commands, ports, strict=True)
    ]
    servers = Servers([f"http://127.0.0.1:{port}" for port in ports], processes, log_path)
    try:
        for url in servers.urls:
            _wait_until_up(url, servers)
        yield servers
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()


def _wait_until_up(url, servers, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in servers.processes):
            raise RuntimeError(f"a web process exited:\n{servers.log()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health/", timeout=5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"a web process did not start at {url}:\n{servers.log()[-3000:]}")
