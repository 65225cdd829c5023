"""`manage.py up` brings the whole platform up on a machine with nothing configured, and down."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from django.conf import settings

from microchip_site.services import free_port


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def port_open(port):
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def unconfigured_env(tmp_path) -> dict:
    """The environment of a machine with nothing configured, its var/ in `tmp_path`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY")
    }
    env["MICROCHIP_VAR_DIR"] = str(tmp_path)
    return env


def test_up_migrates_serves_runs_worker_and_beat_and_stops_everything(tmp_path):
    port = free_port()
    env = unconfigured_env(tmp_path)
    log = open(tmp_path / "up.log", "w+")  # noqa: SIM115 - read after the process ends
    process = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--demo", "--port", str(port)],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(lambda: port_open(port), 60, "daphne to listen")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=30) as answer:
            body = json.load(answer)
            assert body == {
                "status": "ok",
                "database": True,
                "redis": True,
                "process": body["process"],
            }
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as page:
            assert "Log in" in page.read().decode()
        wait_for(
            lambda: (
                "worker1@" in (tmp_path / "up.log").read_text()
                and "beat: Starting" in (tmp_path / "up.log").read_text()
            ),
            60,
            "the worker and beat",
        )
        output = (tmp_path / "up.log").read_text()
        redis_port = int(re.search(r"Redis: redis://127\.0\.0\.1:(\d+)/0", output).group(1))
        assert port_open(redis_port)
        assert f"Microchip Online is running at http://localhost:{port}/" in output
        assert "Demo players: ada" in output
        assert (tmp_path / "microchip.sqlite3").exists()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        log.close()

    assert not port_open(port)
    assert not port_open(redis_port)
    # Nothing it started is left running: the worker and beat went with it.
    wait_for(lambda: not group_alive(process.pid), 15, "every child to exit")


def group_alive(group):
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_up_runs_several_web_processes_behind_one_port_gunicorn_and_several_workers(tmp_path):
    port, http_port = free_port(), free_port()
    env = unconfigured_env(tmp_path)
    env["GAMES_SWEEP_SECONDS"] = "2"  # so that beat's first sweep comes soon
    log_path = tmp_path / "up.log"
    log = open(log_path, "w+")  # noqa: SIM115 - read after the process ends
    up = ["up", "--web", "2", "--workers", "2", "--port", str(port), "--http", "2",
          "--http-port", str(http_port)]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "manage.py", *up],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(lambda: "Microchip Online is running" in log_path.read_text(), 60, "up")
        output = log_path.read_text()
        assert "2 web processes (daphne), 2 workers, 1 beat." in output
        assert f"HTTP also from 2 gunicorn processes on port {http_port}" in output
        redis_url = re.search(r"Redis: (redis://127\.0\.0\.1:\d+/0)", output).group(1)

        # Both daphne processes answer on the one port: the kernel hands each new connection to
        # whichever of them accepts it first.
        pids = set()

        def two_processes_answered():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=30) as answer:
                body = json.load(answer)
            assert body["status"] == "ok", body
            pids.add(body["process"])
            return len(pids) == 2

        wait_for(lambda: port_open(port), 60, "daphne to listen")
        wait_for(two_processes_answered, 60, "both web processes to answer on one port")
        for pid in pids:
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
            assert b"daphne" in command and b"--fd" in command, command
            assert parent_of(pid) == process.pid

        # gunicorn's workers serve the same site's HTTP on the other port (the proxy's "/").
        wait_for(lambda: port_open(http_port), 60, "gunicorn to listen")
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/health/", timeout=30) as answer:
            body = json.load(answer)
        assert body["status"] == "ok" and body["process"] not in pids, body
        command = (Path("/proc") / str(parent_of(body["process"])) / "cmdline").read_bytes()
        assert b"gunicorn" in command and parent_of(parent_of(body["process"])) == process.pid
        login_page = f"http://127.0.0.1:{http_port}/accounts/login/"
        with urllib.request.urlopen(login_page, timeout=10) as page:
            assert "Log in" in page.read().decode()

        health_env = {**env, "REDIS_URL": redis_url}
        answers = []

        def two_workers_answer():
            answers.append(run_health(health_env, "--worker", "--min-workers", "2"))
            return answers[-1].returncode == 0

        wait_for(two_workers_answer, 90, "both workers to answer a ping")
        workers = answers[-1]
        assert "worker: ok (2 answered" in workers.stdout
        assert "worker1@" in workers.stdout and "worker2@" in workers.stdout
        # Beat's sweep, run by a worker, stamps the clock within a few seconds.
        wait_for(lambda: run_health(health_env, "--beat").returncode == 0, 60, "the first sweep")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        log.close()

    assert process.returncode == 0, log_path.read_text()[-3000:]
    assert log_path.read_text().count("beat: Starting") == 1  # exactly one beat
    assert not port_open(port)
    assert not port_open(http_port)
    wait_for(lambda: not group_alive(process.pid), 15, "every child to exit")


def run_health(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "health", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def parent_of(pid: int) -> int:
    status = (Path("/proc") / str(pid) / "status").read_text()
    return int(re.search(r"^PPid:\s+(\d+)", status, re.MULTILINE).group(1))


def test_up_refuses_several_web_processes_on_an_ipv6_address(tmp_path):
    # daphne adopts an inherited listening socket only for IPv4; one process may bind IPv6.
    answer = subprocess.run(
        [sys.executable, "manage.py", "up", "--host", "::1", "--web", "2"],
        cwd=settings.BASE_DIR,
        env=unconfigured_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert answer.returncode == 1
    assert "--web above 1 needs an IPv4 --host" in answer.stderr
    assert not (tmp_path / "microchip.sqlite3").exists()  # refused before anything started
