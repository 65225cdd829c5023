"""Health checks: the web process's /health/, and `manage.py health` for workers and beat."""

import os
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, connection

from games import tasks
from infra import health
from infra.services import free_port
from tests.conftest import database_url

# --- web: /health/ -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_web_health_is_ok_with_the_database_and_redis_and_names_its_process(
    client, settings, redis_url
):
    settings.REDIS_URL = redis_url

    response = client.get("/health/")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": True,
        "redis": True,
        "process": os.getpid(),
    }
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_web_health_stays_up_but_degraded_when_redis_is_down(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there

    started = time.monotonic()
    response = client.get("/health/")

    assert time.monotonic() - started < 3
    assert response.status_code == 200  # moves still work over HTTP: keep it in rotation
    assert response.json()["status"] == "degraded"
    assert response.json()["redis"] is False
    assert response.json()["database"] is True


@pytest.mark.django_db
def test_web_health_fails_when_the_database_does_not_answer(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", broken_cursor)

    response = client.get("/health/")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["database"] is False


# --- beat: manage.py health --beat ---------------------------------------------------------------


def run_health(*args) -> tuple[int, str]:
    """Run `manage.py health` in this process; return (exit code, output)."""
    from io import StringIO

    out = StringIO()
    try:
        call_command("health", *args, stdout=out)
    except SystemExit as exit:
        return exit.code, out.getvalue()
    return 0, out.getvalue()


@pytest.mark.django_db
def test_beat_health_fails_until_a_sweep_ran_and_when_the_last_is_too_old(settings):
    settings.GAMES_SWEEP_SECONDS = 60

    code, output = run_health("--beat")
    assert code == 1
    assert "beat: FAILED (no sweep has run yet)" in output

    tasks.sweep()
    code, output = run_health("--beat")
    assert code == 0, output
    assert "beat: ok (last sweep 0 s ago; allowed 180 s" in output

    health.record_sweep(time.time() - 179)  # just inside 3 intervals
    assert run_health("--beat")[0] == 0
    health.record_sweep(time.time() - 181)
    code, output = run_health("--beat")
    assert code == 1
    assert "beat: FAILED (last sweep 181 s ago; allowed 180 s" in output


# --- worker: manage.py health --worker -----------------------------------------------------------


def health_command(*args, redis_url: str | None) -> subprocess.CompletedProcess:
    """Run `manage.py health` as an operator would: a process of its own, the site's settings."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(DATABASE_URL=database_url(), SECRET_KEY=settings.SECRET_KEY)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return subprocess.run(
        [sys.executable, "manage.py", "health", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.servers
def test_worker_health_answers_while_a_worker_runs_and_the_engine_check_asks_for_its_own(
    celery_worker_process,
):
    """A finished game's review runs on a queue of its own: a worker of the games' queue alone
    leaves the reviews undone, and the engine's check says so."""
    worker = celery_worker_process()

    found = health_command("--worker", "--engine", redis_url=worker.broker_url)
    assert found.returncode == 1, found.stdout + found.stderr
    assert "worker: ok (1 answered within 2 s: test-" in found.stdout
    assert "engine: FAILED (0 answered within 2 s)" in found.stdout

    # Two are asked for, one answers: not enough.
    short = health_command("--worker", "--min-workers", "2", redis_url=worker.broker_url)
    assert short.returncode == 1
    assert "worker: FAILED (1 answered" in short.stdout

    worker.process.terminate()
    worker.process.wait(timeout=30)
    gone = health_command("--worker", "--timeout", "1", redis_url=worker.broker_url)
    assert gone.returncode == 1
    assert "worker: FAILED (0 answered within 1 s)" in gone.stdout

    engine = celery_worker_process(queues="engine")
    served = health_command("--engine", redis_url=engine.broker_url)
    assert served.returncode == 0, served.stdout + served.stderr
    assert "engine: ok (1 answered within 2 s: test-" in served.stdout


def test_worker_health_fails_at_once_when_the_broker_is_down(db):
    started = time.monotonic()
    down = health_command("--worker", redis_url=f"redis://127.0.0.1:{free_port()}/0")

    assert down.returncode == 1
    assert "worker: FAILED (the broker (Redis) does not answer)" in down.stdout
    assert time.monotonic() - started < 20


@pytest.mark.django_db
def test_the_worker_and_beat_checks_say_when_they_have_no_redis_to_look_in(settings):
    """Run without the platform's REDIS_URL, the command could only look at a cache of its own."""
    settings.REDIS_URL = ""

    code, output = run_health()

    assert code == 1
    assert "worker: FAILED (no broker: REDIS_URL is not set)" in output
    assert "beat: FAILED (no shared cache: REDIS_URL is not set)" in output
