"""Which server processes the load benchmark watches: the platform's own, found by the
addresses it was pointed at, and none of the other servers of the same kinds on the machine
(which is shared: other people run their own daphne, Redis and PostgreSQL here). Checked
against real processes: stand-ins started as the servers are (`python -m daphne`, `python -m
gunicorn`, `python -m celery`, modules of the test's own directory) that listen where the real
ones would, real redis-servers, a real nginx, and the test database's PostgreSQL."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import psutil
import pytest
from django.conf import settings
from django.db import connection

from benchmarks.loadtest.processes import (
    Address,
    Sampler,
    database_address,
    kind_of,
    platform_processes,
    redis_address,
    upstreams_in,
)
from infra.services import free_port, redis_server_executable

pytestmark = pytest.mark.servers

# A stand-in server, run as `python -m daphne` (or gunicorn) from the test's directory: listens
# on a port (argv[1]), forks argv[2] children that share the socket (as gunicorn's workers do),
# and waits. The stand-in Celery only waits.
SERVER = """
import os, socket, sys, time
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(sys.argv[1])))
sock.listen()
for _ in range(int(sys.argv[2])):
    if os.fork() == 0:
        break
time.sleep(600)
"""
STAND_INS = {
    "daphne.py": SERVER,
    "gunicorn.py": SERVER,
    "celery.py": "import time\ntime.sleep(600)\n",
}

# A stand-in `manage.py up`: a daphne on argv[2], a Celery worker, and a real Redis on argv[3].
UP = f"""
import subprocess, sys, time
children = [
    subprocess.Popen([sys.executable, "-m", "daphne", sys.argv[2], "0"]),
    subprocess.Popen([sys.executable, "-m", "celery", "worker"]),
    subprocess.Popen([{redis_server_executable()!r}, "--port", sys.argv[3], "--bind",
                      "127.0.0.1", "--save", "", "--appendonly", "no"]),
]
time.sleep(600)
"""


@pytest.fixture
def start(tmp_path):
    """Start a command in a process group of its own; every group is killed at the end."""
    groups = []

    for name, code in STAND_INS.items():
        (tmp_path / name).write_text(code)

    def run(*command, listens_on=()):
        process = subprocess.Popen(
            command, cwd=tmp_path, start_new_session=True, stdout=subprocess.DEVNULL
        )
        groups.append(process.pid)
        deadline = time.monotonic() + 30
        while not all(listening(port) for port in listens_on):
            assert process.poll() is None and time.monotonic() < deadline, command
            time.sleep(0.05)
        return process

    yield run
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def server(start, kind: str, port: int, forks: int = 0):
    return start(sys.executable, "-m", kind, str(port), str(forks), listens_on=[port])


def redis_server(start, port: int):
    command = [redis_server_executable(), "--port", str(port), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no"]  # fmt: skip
    return start(*command, listens_on=[port])


@pytest.fixture
def decoys(start):
    """Servers of every kind that are not the platform's: someone else's on the machine."""
    return {
        server(start, "daphne", free_port()).pid,
        server(start, "gunicorn", free_port(), forks=1).pid,
        start(sys.executable, "-m", "celery", "beat").pid,
        redis_server(start, free_port()).pid,
    }


def watched(roots) -> dict[int, str]:
    """What the sampler watches, given the roots: pid to kind."""
    sampler = Sampler(roots=roots).start()
    sampler.stop()
    return {pid: kind for pid, (kind, _) in sampler.processes.items()}


def with_children(pid: int) -> set[int]:
    process = psutil.Process(pid)
    return {pid, *(child.pid for child in process.children(recursive=True))}


def test_everything_up_started_is_found_from_its_port_and_nothing_else(tmp_path, start, decoys):
    web_port, redis_port = free_port(), free_port()
    (tmp_path / "manage.py").write_text(UP)
    up = start(sys.executable, "manage.py", "up", str(web_port), str(redis_port),
               listens_on=[web_port, redis_port])  # fmt: skip

    roots, notes = platform_processes(Address("127.0.0.1", web_port))

    assert [root.pid for root in roots] == [up.pid]
    assert notes == [f"the platform on 127.0.0.1:{web_port}: manage.py up, pid {up.pid}, and its "
                     "processes"]  # fmt: skip
    found = watched(roots)
    assert sorted(found.values()) == ["Redis", "web (daphne)", "worker/beat (celery)"]
    assert set(found) == with_children(up.pid) - {up.pid}
    assert not set(found) & decoys


def test_a_master_and_its_workers_are_found_and_the_servers_of_redis_url(start, decoys):
    web_port, redis_port = free_port(), free_port()
    master = server(start, "gunicorn", web_port, forks=2)
    redis = redis_server(start, redis_port)

    roots, notes = platform_processes(
        Address("localhost", web_port), redis=redis_address(f"redis://127.0.0.1:{redis_port}/0")
    )

    assert sorted(root.pid for root in roots) == sorted([master.pid, redis.pid])
    assert notes[1] == f"Redis on 127.0.0.1:{redis_port}: Redis, pid {redis.pid}, and its processes"
    found = watched(roots)
    assert found == {
        **{pid: "web (gunicorn)" for pid in with_children(master.pid)},
        redis.pid: "Redis",
    }
    assert len(found) == 4 and not set(found) & decoys


def test_a_server_on_another_machine_is_said_to_be_out_of_reach(start):
    port = free_port()

    roots, notes = platform_processes(Address("127.0.0.1", port), redis=Address("127.0.0.1", port))

    assert roots == []
    assert notes == [
        f"the platform on 127.0.0.1:{port}: nothing on this machine listens there",
        f"Redis on 127.0.0.1:{port}: nothing on this machine listens there",
    ]


@pytest.mark.skipif(not shutil.which("nginx"), reason="nginx is not installed")
def test_behind_nginx_the_servers_it_proxies_to_are_found(tmp_path, start, decoys):
    # The README's layout: nginx with docs/nginx-local.conf in front of gunicorn and daphne.
    nginx_port, http_port, live_port = free_port(), free_port(), free_port()
    config = (settings.BASE_DIR / "docs" / "nginx-local.conf").read_text()
    config = config.replace("127.0.0.1:8080", f"127.0.0.1:{nginx_port}")
    config = config.replace("127.0.0.1:8001", f"127.0.0.1:{http_port}")
    config = config.replace("127.0.0.1:8000", f"127.0.0.1:{live_port}")
    (tmp_path / "nginx.conf").write_text(config)
    gunicorn = server(start, "gunicorn", http_port, forks=1)
    daphne = server(start, "daphne", live_port)
    nginx = start(shutil.which("nginx"), "-p", str(tmp_path), "-c", "nginx.conf",
                  "-g", "daemon off;", listens_on=[nginx_port])  # fmt: skip

    roots, notes = platform_processes(Address("127.0.0.1", nginx_port))

    assert [root.pid for root in roots] == [nginx.pid, gunicorn.pid, daphne.pid]
    assert notes[1:] == [
        f"  behind it on 127.0.0.1:{http_port}: web (gunicorn), pid {gunicorn.pid}, and its "
        "processes",
        f"  behind it on 127.0.0.1:{live_port}: web (daphne), pid {daphne.pid}, and its processes",
    ]
    found = watched(roots)
    assert (
        sorted(found.values()) == ["proxy (nginx)"] * 2 + ["web (daphne)"] + ["web (gunicorn)"] * 2
    )
    assert not set(found) & decoys


def test_upstreams_are_read_from_an_nginx_configuration_and_its_includes(tmp_path):
    assert upstreams_in(settings.BASE_DIR / "docs" / "nginx-local.conf") == [
        Address("127.0.0.1", 8001),
        Address("127.0.0.1", 8000),
    ]
    (tmp_path / "sites").mkdir()
    (tmp_path / "nginx.conf").write_text("http {\n  include sites/*.conf;  # the sites\n}\n")
    (tmp_path / "sites" / "a.conf").write_text(
        "upstream app { server [::1]:9001 weight=2; server unix:/run/app.sock; }\n"
        "server { listen 80; server_name a.example;\n"
        "  location / { proxy_pass http://app; }\n"
        "  location /ws/ { proxy_pass http://localhost:9002/ws/; }  # server 1.2.3.4:5;\n}\n"
    )
    assert upstreams_in(tmp_path / "nginx.conf") == [
        Address("::1", 9001),
        Address("localhost", 9002),
    ]


def test_the_addresses_of_database_url_and_redis_url():
    postgres = "django.db.backends.postgresql"
    assert database_address({"ENGINE": postgres, "HOST": "db", "PORT": "5433"}) == Address(
        "db", 5433
    )
    assert database_address({"ENGINE": postgres, "HOST": "", "PORT": ""}) == Address(
        path="/var/run/postgresql/.s.PGSQL.5432"
    )
    assert database_address({"ENGINE": postgres, "HOST": "/tmp/pg", "PORT": 6543}) == Address(
        path="/tmp/pg/.s.PGSQL.6543"
    )
    assert database_address({"ENGINE": "django.db.backends.sqlite3", "NAME": "x"}) is None
    assert redis_address("") is None
    assert redis_address("redis://10.0.0.5/1") == Address("10.0.0.5", 6379)
    assert redis_address("unix:///run/redis.sock") == Address(path="/run/redis.sock")


@pytest.mark.django_db
@pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="PostgreSQL only (CI)"
)
def test_the_postgresql_server_of_database_url_and_its_backends_are_found(start, decoys):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()

    roots, notes = platform_processes(
        Address("127.0.0.1", free_port()), database=database_address(connection.settings_dict)
    )

    (postmaster,) = roots
    assert backend in {child.pid for child in postmaster.children()}
    assert notes[-1].startswith(f"PostgreSQL on {database_address(connection.settings_dict)}: ")
    found = watched(roots)
    assert found[postmaster.pid] == found[backend] == "PostgreSQL"
    assert set(found.values()) == {"PostgreSQL"} and not set(found) & decoys


def test_the_pids_given_are_watched_alone(start, decoys):
    pid = server(start, "daphne", free_port()).pid

    sampler = Sampler([pid]).start()
    sampler.stop()

    assert set(sampler.processes) == {pid}


def test_a_process_is_of_a_kind_by_the_program_it_runs_not_by_words_in_its_command_line(start):
    """`pytest -k nginx` above the benchmark's nginx is not an nginx: the tree of a server is
    climbed only through processes that run its program."""
    daphne = server(start, "daphne", free_port())
    talker = start(sys.executable, "-c", "import time; time.sleep(600)", "-k", "nginx daphne")
    redis = redis_server(start, port := free_port())

    assert kind_of(psutil.Process(daphne.pid)) == "web (daphne)"
    assert kind_of(psutil.Process(redis.pid)) == "Redis", port
    assert kind_of(psutil.Process(talker.pid)) is None
