"""The load benchmark (`python -m benchmarks load`) against a real daphne: it plays the games
through the act endpoint and the sockets, with watchers when asked and in a series of steps,
reports what it measured, and leaves the database as it found it unless told to keep what it
made; beside the floor, on PostgreSQL."""

import io
import random
import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from accounts.models import User
from benchmarks.commands import load
from games.models import Event, Game
from infra.launcher import can_listen

from .conftest import SERVERS_REDIS_DB
from .test_bench_processes import decoys, start  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


def bench(servers, *options, pids=True) -> str:
    out = io.StringIO()
    watch = ["--pids", str(servers.processes[0].pid)] if pids else []
    call_command(
        load.Command(), "--url", servers.urls[0], "--games", "2", "--think", "0.05",
        "--seconds", "3", "--warm-up", "0", *watch, *options, stdout=out,
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


def test_watchers_get_every_move_and_their_cost_is_reported(one_daphne, celery_worker_process):
    celery_worker_process(redis_db=SERVERS_REDIS_DB)
    # One watcher of each game and two more of the first; each page beats every second (well
    # within what a socket may send: games/live/consumers.py).
    report = bench(one_daphne, "--watchers", "1", "--watch-one", "2", "--heartbeat", "1")

    found = re.search(
        r"watchers: 4 sockets, (\d+) moves of their games; ([\d.]+) KiB per watcher per move; "
        r"delivery from the answer -?\d+ / -?\d+ ms \((\d+)\), 0 not within 5 s",
        report,
    )
    assert found, report
    moves, per_watcher, delivered = int(found[1]), float(found[2]), int(found[3])
    accepted = int(re.search(r"\((\d+) accepted\)", report)[1])
    assert moves == accepted >= 4  # every game is watched
    assert per_watcher > 0.2  # each move brought its watchers at least its status
    # Every move reached each watcher of its game: 3 watch the first game, 1 the second.
    assert delivered >= moves
    assert "errors: 0 " in report, report
    heartbeats = int(re.search(r"heartbeats sent: (\d+)", report)[1])
    assert heartbeats >= 8  # 8 pages, each at least once in 3 s
    assert re.search(r"resyncs received: players \d+, watchers \d+", report), report
    assert not User.objects.filter(username__startswith="load-").exists()  # watchers too
    assert not Session.objects.exists()


def test_a_watcher_series_runs_each_step_and_fits_the_cost_of_a_watcher(
    one_daphne, celery_worker_process
):
    celery_worker_process(redis_db=SERVERS_REDIS_DB)
    report = bench(one_daphne, "--watcher-series", "0,3", "--seconds", "2")

    assert "== step 1 of 2: 0 watchers of the first game" in report
    assert "== step 2 of 2: 3 watchers of the first game" in report
    steps = re.findall(
        r"^ +([03]) +(\d+) +(\d+) +[\d.]+ .* (\d+) +\S+ / \S+ ms +\d+$", report, re.M
    )
    assert [step[0] for step in steps] == ["3"], report  # step 0 has no delivery to watchers
    assert re.search(r"^ +0 +\d+ +0 +[\d.]+ .* 0 +- +0$", report, re.M), report
    assert int(steps[0][3]) > 200  # bytes per watcher per move
    # Two steps, two unknowns: an exact fit, in all processes and for daphne.
    assert re.search(r"^  all +-?\d+\.\d{3} +[\d.]+$", report, re.M), report
    assert re.search(r"^  web \(daphne\) +-?\d+\.\d{3} +[\d.]+$", report, re.M), report
    assert not User.objects.filter(username__startswith="load-").exists()


def floor_port() -> int:
    """A port for the floor's nginx, with the next two (its daphne and gunicorn) free too, below
    Linux's ephemeral range (32768-60999): a port in that range can be taken by any outgoing
    connection of the machine between this choice and the floor's start."""
    for _ in range(200):
        base = random.randrange(20000, 32000)
        try:
            for port in range(base, base + 3):
                can_listen("127.0.0.1", port)
        except CommandError:
            continue
        return base
    raise RuntimeError("no three free ports in a row between 20000 and 32000")


def test_the_floor_is_played_beside_the_platform_both_ways(one_daphne, celery_worker_process):
    celery_worker_process(redis_db=SERVERS_REDIS_DB)
    # Five players a game, as a 5-player game's cost per action is measured against 2 players'.
    options = ["--players", "5", "--watch-one", "2", "--floor", "--floor-html", "template,fixed",
               "--floor-processes", "1", "1", "--floor-database", "bench_floor_load_test",
               "--floor-redis-db", "15", "--floor-port", str(floor_port())]  # fmt: skip
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        with pytest.raises(CommandError, match=r"the floor runs on (PostgreSQL|Redis)"):
            bench(one_daphne, *options)
        return

    report = bench(one_daphne, *options)

    for html in ("template", "fixed"):
        assert re.search(rf"the floor \({html}\): \d+ moves in \d+ s, errors 0, pushes not "
                         r"delivered within 5 s 0", report), report  # fmt: skip
        assert f"CPU per move, the platform beside the floor ({html}) (ms):" in report
    assert re.search(r"^  all +[\d.]+ +[\d.]+ +[\d.]+x$", report, re.M), report
    # The floor's watchers got its pushes: drawn by the template (about the size of a
    # platform's answer) or 2 KB of fixed markup.
    sizes = re.findall(r"2 watchers: ([\d.]+) KiB per watcher per move", report)
    assert len(sizes) == 2 and float(sizes[0]) > 2.5 > float(sizes[1]) > 1.5, report
