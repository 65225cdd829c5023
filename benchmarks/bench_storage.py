"""How the site holds up with many games stored (`python -m benchmarks storage`,
docs/performance.md "A million games stored"): on a database filled by `python -m benchmarks
generate`, the time of the sweep's queries with nothing due and with some games due, and the
median time of the pages a player opens most (their dashboard, the lobby, their archive, the
leaderboard, a replay), each served in this process by Django's test client; and the plan of
every query of those pages and of the sweep, with any sequential scan of a big table named.

The busy player is the first generated one (sim0001, `generate --busy 300`).
"""

import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Game, Seat
from games.play import clock

BUSY_PLAYER = "sim0001"
# The tables that grow with the games stored: a sequential scan of one is a page or a sweep
# whose cost grows with them.
BIG_TABLES = ("games_game", "games_seat", "games_event", "games_ratingchange")
SWEEP_QUERIES: dict[str, Callable] = {
    "overdue turns": clock.overdue,
    "reminders due": clock.reminders_due,
    "stalled computer players": clock.stalled_bots,
    "vacations over": clock.vacations_over,
    "analyses due": clock.analyses_due,
}


@dataclass
class Timing:
    name: str
    median_ms: float
    p90_ms: float
    queries: int = 0
    seq_scans: list[str] = field(default_factory=list)


def _median(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


def seq_scans(sql: str) -> list[str]:
    """The big tables that `sql`'s plan reads whole (PostgreSQL's EXPLAIN)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return sorted(set(re.findall(r"Seq Scan on (\w+)", plan)) & set(BIG_TABLES))


def plans_of(queries: list[dict]) -> list[str]:
    """`table: statement` for each statement whose plan reads a big table whole."""
    found = []
    for query in queries:
        sql = query["sql"]
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        for table in seq_scans(sql):
            found.append(f"{table}: {sql[:300]}")
    return found


def pages(busy: User) -> dict[str, str]:
    """The pages measured, by name: the busy player's dashboard, the lobby and archive they
    see, the leaderboard, and the replay of their last finished game."""
    last = (
        Seat.objects.filter(user=busy, game__status=Game.Status.ENDED)
        .order_by("-game__ended_at")
        .values_list("game_id", flat=True)
        .first()
    )
    found = {
        "dashboard": reverse("dashboard"),
        "lobby": reverse("games:lobby"),
        "archive": reverse("archive", args=[busy.username]),
        "archive, page 5": reverse("archive", args=[busy.username]) + "?page=5",
        "leaderboard": reverse("leaderboard"),
    }
    if last is not None:
        found["replay"] = reverse("games:replay", args=[last])
    return found


def time_pages(runs: int, explain: bool, username: str = BUSY_PLAYER) -> list[Timing]:
    # Static files by their plain names: the manifest needs `collectstatic`, and the pages'
    # cost is the same.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(STORAGES=storages):
        return _time_pages(runs, explain, username)


def _time_pages(runs: int, explain: bool, username: str) -> list[Timing]:
    busy = User.objects.get(username=username)
    host = next((h.lstrip(".") for h in settings.ALLOWED_HOSTS if h != "*"), "testserver")
    client = Client(HTTP_HOST=host or "localhost")
    client.force_login(busy)
    timings = []
    for name, url in pages(busy).items():
        response = client.get(url)  # warm: the templates, the parts' caches
        assert response.status_code == 200, (url, response.status_code)
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            client.get(url)
            samples.append((time.perf_counter() - started) * 1000)
        with CaptureQueriesContext(connection) as captured:
            client.get(url)
        scans = plans_of(captured.captured_queries) if explain else []
        timings.append(Timing(name, *_median(samples), len(captured.captured_queries), scans))
    return timings


def time_sweep(runs: int, due: int, explain: bool) -> list[Timing]:
    """The sweep's queries with `due` games made due (their deadline and reminder in the past,
    and as many computer players' turns stalled), in a transaction rolled back after."""
    timings = []
    with transaction.atomic():
        now = timezone.now()
        if due:
            _make_due(due, now)
        for name, query in SWEEP_QUERIES.items():
            query(now)
            samples = []
            for _ in range(runs):
                started = time.perf_counter()
                found = query(now)
                samples.append((time.perf_counter() - started) * 1000)
            with CaptureQueriesContext(connection) as captured:
                query(now)
            scans = plans_of(captured.captured_queries) if explain else []
            timing = Timing(
                f"{name} ({len(found)} found)",
                *_median(samples),
                len(captured.captured_queries),
                scans,
            )
            timings.append(timing)
        transaction.set_rollback(True)
    return timings


def _make_due(count: int, now) -> None:
    """Make `count` games in progress due: their turn and reminder past, and the seat whose
    turn it is in half of them left to the server's stand-in (its task lost)."""
    ids = list(
        Game.objects.filter(status=Game.Status.PLAYING)
        .order_by("pk")
        .values_list("pk", flat=True)[:count]
    )
    past = now - timedelta(minutes=5)
    Game.objects.filter(pk__in=ids).update(deadline=past, remind_at=past, turn_started_at=past)
    for game_id in ids[::2]:
        game = Game.objects.only("current_seat").get(pk=game_id)
        Seat.objects.filter(game_id=game_id, number=game.current_seat).update(
            left=Seat.Left.RESIGNED
        )


def counts() -> dict[str, int]:
    return {
        "players": User.objects.count(),
        "finished": Game.objects.filter(status=Game.Status.ENDED).count(),
        "in progress": Game.objects.filter(status=Game.Status.PLAYING).count(),
        "waiting": Game.objects.filter(status=Game.Status.WAITING).count(),
        "busy player's games": Seat.objects.filter(user__username=BUSY_PLAYER).count(),
    }


def report(timings: list[Timing]) -> list[str]:
    lines = []
    for t in timings:
        scans = f"  SEQ SCAN: {'; '.join(t.seq_scans)}" if t.seq_scans else ""
        lines.append(
            f"  {t.name:<42} median {t.median_ms:8.2f} ms  p90 {t.p90_ms:8.2f} ms"
            f"  {t.queries:2d} queries{scans}"
        )
    return lines
