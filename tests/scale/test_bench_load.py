"""The load benchmark (`manage.py bench_load`) against a real daphne: it plays the games through
the act endpoint and the sockets, reports what it measured, and leaves the database as it found
it unless told to keep what it made."""

import io
import re

import pytest
from django.contrib.sessions.models import Session
from django.core.management import call_command

from accounts.models import User
from games.models import Event, Game

from .conftest import SERVERS_REDIS_DB

pytestmark = pytest.mark.django_db(transaction=True)


def bench(servers, *options) -> str:
    out = io.StringIO()
    call_command(
        "bench_load", "--url", servers.urls[0], "--games", "2", "--think", "0.05",
        "--seconds", "3", "--pids", str(servers.processes[0].pid), *options, stdout=out,
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
