"""The load benchmark (`python -m benchmarks load`) against a real daphne: it plays the games
through the act endpoint and the sockets, reports what it measured, and leaves the database as
it found it unless told to keep what it made."""

import io
import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.management import call_command

from accounts.models import User
from benchmarks.commands import load
from games.models import Event, Game

from .conftest import SERVERS_REDIS_DB
from .test_bench_processes import decoys, start  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


def bench(servers, *options, pids=True) -> str:
    out = io.StringIO()
    watch = ["--pids", str(servers.processes[0].pid)] if pids else []
    call_command(
        load.Command(), "--url", servers.urls[0], "--games", "2", "--think", "0.05",
        "--seconds", "3", *watch, *options, stdout=out,
    )  # fmt: skip
    return out.getvalue()


def test_the_benchmark_plays_reports_and_deletes_what_it_made(one_daphne, celery_worker_process):
    celery_worker_process(redis_db=SERVERS_REDIS_DB)  # the server takes a column's last tile
    report = bench(one_daphne)

    accepted = int(re.search(r"throughput: [\d.]+ actions/s \((\d+) accepted\)", report)[1])
    assert accepted >= 4, report
    assert re.search(r"action round trip +p50 +[\d.]+ ms +p95 +[\d.]+ ms +p99", report), report
    assert re.search(r"websocket delivery +p50 +[\d.]+ ms", report), report
    assert "errors: 0 " in report, report
    # The watched server process: its peak memory, its CPU, and that CPU per action.
    assert re.search(
        r"web \(daphne\) +1 process\(es\) +peak memory +\d+ MiB .* CPU +\d+% +[\d.]+ ms per action",
        report,
    ), report
    assert re.search(r"all of them: CPU +[\d.]+ ms per action", report), report
    assert not User.objects.filter(username__startswith="load-").exists()
    assert not Game.objects.exists() and not Event.objects.exists()
    assert not Session.objects.exists()


def test_the_benchmark_keeps_its_players_and_games_when_asked(one_daphne, celery_worker_process):
    celery_worker_process(redis_db=SERVERS_REDIS_DB)
    bench(one_daphne, "--keep")

    players = User.objects.filter(username__startswith="load-")
    assert players.count() == 4
    assert Game.objects.filter(created_by__in=players).count() == 2
    assert Event.objects.filter(kind="draft").exists()  # they were played, not only made
    assert Session.objects.count() == 4


@pytest.mark.usefixtures("decoys")
def test_by_default_the_benchmark_watches_the_platforms_processes_only(
    one_daphne, celery_worker_process
):
    # Other servers of the same kinds run on the machine (the decoys, and on a shared machine
    # other people's): only the daphne listening on --url, and the servers of DATABASE_URL and
    # REDIS_URL, are counted.
    celery_worker_process(redis_db=SERVERS_REDIS_DB)
    daphne = one_daphne.processes[0].pid
    port = urlsplit(one_daphne.urls[0]).port

    report = bench(one_daphne, pids=False)

    assert f"the platform on 127.0.0.1:{port}: web (daphne), pid {daphne}, and its " in report
    assert re.search(r"web \(daphne\) +1 process\(es\) ", report), report
    assert "gunicorn" not in report and "celery" not in report, report  # the decoys'
    redis_line = re.search(r"Redis +(\d+) process\(es\) ", report)
    postgres_line = re.search(r"PostgreSQL +(\d+) process\(es\) ", report)
    if settings.REDIS_URL:  # the run's Redis (manage.py test), which the daphne uses
        assert redis_line and redis_line[1] == "1", report
    else:
        assert not redis_line, report
    if "postgresql" in settings.DATABASES["default"]["ENGINE"]:
        assert postgres_line, report  # the test database's server and its backends
    else:
        assert not postgres_line, report
