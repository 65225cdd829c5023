"""Many games stored (issue 21): what `benchmarks generate` makes replays (check_games), and on a
modest generated database the plans of the sweep's queries and of a player's pages (dashboard,
lobby, archive, leaderboard, replay) read no big table whole; the planner chooses, nothing is
forced. `python -m benchmarks storage` runs, short. PostgreSQL only (CI runs it): SQLite's plans are
another matter."""

import io
import re

import pytest
from django.conf import settings
from django.core.management import call_command

from benchmarks import bench_storage
from benchmarks.commands import storage
from benchmarks.generate import generate
from games.history.integrity import check_games
from games.models import Game

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),  # ANALYZE and the plans see committed rows
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="PostgreSQL only (CI)"
    ),
]

# A player with about as many games as most (sim0001 is the busy one, in many more).
PLAYER = "sim0002"


@pytest.fixture
def stored():
    generate(games=3000, playing=300, waiting=20, users=1000, distinct=12, seed=21, busy=60)


def test_generated_games_replay_and_no_page_or_sweep_reads_a_big_table_whole(stored):
    playing = list(Game.objects.filter(status=Game.Status.PLAYING).values_list("pk", flat=True))
    others = list(Game.objects.exclude(status=Game.Status.PLAYING).values_list("pk", flat=True))
    checked = check_games(playing + others[::25])
    assert checked.mismatches == [] and checked.games[Game.Status.PLAYING] == 300

    for timing in bench_storage.time_sweep(runs=1, due=6, explain=True):
        assert timing.seq_scans == [], (timing.name, timing.seq_scans)
    timings = bench_storage.time_pages(runs=1, explain=True, username=PLAYER)
    assert {t.name for t in timings} >= {"dashboard", "lobby", "archive", "leaderboard", "replay"}
    for timing in timings:
        assert timing.seq_scans == [], (timing.name, timing.seq_scans)


def test_the_benchmark_reports_the_sweep_and_the_pages():
    generate(games=40, playing=10, waiting=2, users=20, distinct=3, seed=4, busy=12)
    out = io.StringIO()
    call_command(storage.Command(), runs=2, due=3, stdout=out)
    report = out.getvalue()
    assert "40 finished, 10 in progress, 2 waiting" in report, report
    assert re.search(r"overdue turns \(3 found\) +median +[\d.]+ ms", report), report
    assert re.search(r"reminders due \(3 found\)", report), report
    for page in ("dashboard", "lobby", "archive", "leaderboard", "replay"):
        assert re.search(rf"  {page} +median +[\d.]+ ms", report), (page, report)
