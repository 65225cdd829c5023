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


def test_up_migrates_serves_runs_worker_and_beat_and_stops_everything(tmp_path):
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY")
    }
    env["MICROCHIP_VAR_DIR"] = str(tmp_path)
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
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=10) as answer:
            assert json.load(answer) == {"status": "ok", "database": True}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as page:
            assert "Log in" in page.read().decode()
        wait_for(
            lambda: (
                "celery@" in (tmp_path / "up.log").read_text()
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
