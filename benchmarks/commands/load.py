"""Load benchmark: many whole games played at once against a running platform.

Start the platform on the database and Redis this command will use (the same DATABASE_URL,
REDIS_URL and SECRET_KEY), on a throw-away database, then for example:

    python -m benchmarks load --url http://127.0.0.1:8000 --games 200 --players 2 --think 3

It creates the players and their games in the database (signed in with server-side sessions,
as a browser that logged in would be), opens every player's websocket, and plays each game to
its end through the act endpoint (benchmarks/loadtest/bench.py says how). Then it prints
throughput, the 50th/95th/99th percentiles of the action round trip and of websocket delivery
to the other players, the errors, and the peak memory and CPU of the server's processes: the
platform's own (benchmarks/loadtest/processes.py says how they are found: by the addresses of
--url, DATABASE_URL and REDIS_URL, never by name, since a shared machine runs other servers of
the same kinds), or those given with --pids. It is a benchmark, not a test: it asserts nothing.
At the end it deletes the players, games and sessions it created (--keep leaves them).

With --floor it also starts the floor (benchmarks/floor/: the least a move can cost on the same
stack, issue 21) beside the platform, on the same PostgreSQL and Redis servers (a database of
its own), plays it with the same load shape for as long as the platform's run lasted, and
prints for each kind of process the platform's CPU per move, the floor's, and the ratio, and
the answer and push bytes of both. --floor-url points it at a floor already running instead
(its processes found by address like the platform's, or named with --floor-pids).
"""

import asyncio
import statistics
import uuid
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psutil
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from accounts.models import User
from benchmarks.loadtest.bench import Bench, Player, Table, percentile
from benchmarks.loadtest.floor import Floor, FloorBench, FloorDatabase
from benchmarks.loadtest.processes import (
    Address,
    Sampler,
    database_address,
    platform_processes,
    redis_address,
)
from benchmarks.loadtest.sessions import delete_run, sign_in
from games.play import actions
from games.state_store import load_state, read_game


class Command(BaseCommand):
    help = "Play many whole games at once over HTTP and websockets; print latency and load."

    def add_arguments(self, parser):
        parser.add_argument("--url", required=True, help="the platform, e.g. http://127.0.0.1:8000")
        parser.add_argument("--games", type=int, default=200, help="games played at once")
        parser.add_argument("--players", type=int, default=2, choices=range(2, 6))
        parser.add_argument(
            "--think", type=float, default=3.0, help="mean seconds a player thinks before a move"
        )
        parser.add_argument(
            "--seconds", type=float, default=900.0, help="stop after this long if games go on"
        )
        parser.add_argument(
            "--pids",
            type=int,
            nargs="*",
            help="server processes to watch (by default the platform's: those listening on "
            "--url and their process trees, and the servers of DATABASE_URL and REDIS_URL)",
        )
        parser.add_argument(
            "--keep",
            action="store_true",
            help="leave the players, games and sessions in the database (deleted by default)",
        )

        parser.add_argument(
            "--floor",
            action="store_true",
            help="start the floor (benchmarks/floor/) beside the platform and compare",
        )
        parser.add_argument(
            "--floor-url", help="compare with a floor already running there (e.g. behind nginx)"
        )
        parser.add_argument("--floor-pids", type=int, nargs="*", help="the floor's processes")
        parser.add_argument(
            "--floor-port", type=int, default=8512, help="where a started floor listens"
        )
        parser.add_argument(
            "--floor-database",
            default="bench_floor",
            help="the floor's database on the platform's PostgreSQL server (made if missing)",
        )
        parser.add_argument(
            "--floor-redis-db", type=int, default=13, help="the floor's Redis database number"
        )

    def handle(self, *args, url, games, players, think, seconds, pids, keep, **options):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise CommandError("--url must be http://host:port")
        if games < 1 or think <= 0 or seconds <= 0:
            raise CommandError("--games, --think and --seconds must be positive")
        self.stdout.write(f"Setting up {games} games of {players} players...")
        run = uuid.uuid4().hex[:8]
        self.sessions: list[str] = []
        self.floor = None
        try:
            if options["floor"] or options["floor_url"]:
                self._start_floor(games, players, options)
            self._run(run, parts, games, players, think, seconds, pids)
        finally:
            if not keep:
                self._delete(run)
            if self.floor is not None and self.floor.launcher is not None:
                self.floor.stop()

    def _run(self, run, parts, games, players, think, seconds, pids):
        tables = [self._table(run, number, players) for number in range(games)]
        sampler = self._sampler(parts, pids).start()
        bench = Bench(
            parts.hostname,
            parts.port or 80,
            f"{parts.scheme}://{parts.netloc}",
            tables,
            think=think,
            seconds=seconds,
            reload_state=_reload_state,
        )
        self.stdout.write(f"Playing ({games * players} players, {games * players} websockets)...")
        before = _cpu_seconds()
        figures = asyncio.run(bench.run())
        self.own_cpu = _cpu_seconds() - before
        sampler.stop()
        self._report(figures, sampler, games, players, think)
        if self.floor is not None:
            floor_figures, floor_sampler = self._run_floor(
                think, figures.finished - figures.started
            )
            self._compare(figures, sampler, floor_figures, floor_sampler)

    def _start_floor(self, games, players, options) -> None:
        database = settings.DATABASES["default"]
        if "postgresql" not in database["ENGINE"]:
            raise CommandError("the floor runs on PostgreSQL: set DATABASE_URL to one")
        parts = urlsplit(settings.REDIS_URL)
        redis_url = urlunsplit(parts._replace(path=f"/{options['floor_redis_db']}"))
        self.floor = Floor(
            Path(settings.VAR_DIR) / "floor",
            FloorDatabase(
                database["HOST"] or "127.0.0.1",
                int(database["PORT"] or 5432),
                options["floor_database"],
                database["USER"] or "postgres",
                database["PASSWORD"] or "",
            ),
            redis_url,
            options["floor_port"],
        )
        self.floor_url = options["floor_url"]
        self.floor_pids = options["floor_pids"]
        self.stdout.write(f"Setting up the floor's {games} games...")
        self.floor_tables = self.floor.prepare(games, players)
        if not self.floor_url:
            self.floor.start()
            self.floor_url = f"http://127.0.0.1:{self.floor.port}"
            self.stdout.write(f"Started the floor at {self.floor_url}")

    def _run_floor(self, think, seconds):
        parts = urlsplit(self.floor_url)
        if self.floor_pids:
            sampler = Sampler(self.floor_pids)
        else:
            roots, notes = platform_processes(
                Address(parts.hostname, parts.port or 80),
                database=database_address(settings.DATABASES["default"]),
                redis=redis_address(settings.REDIS_URL),
            )
            known = {root.pid for root in roots}
            roots += [root for root in self.floor.roots() if root.pid not in known]
            self.stdout.write("Watching the floor's processes:")
            for note in notes:
                self.stdout.write(f"  {note}")
            sampler = Sampler(roots=roots)
        bench = FloorBench(
            parts.hostname, parts.port or 80, self.floor_tables, think=think, seconds=seconds
        )
        self.stdout.write(f"Playing the floor for {seconds:.0f} s...")
        sampler.start()
        figures = asyncio.run(bench.run())
        sampler.stop()
        return figures, sampler

    def _compare(self, figures, sampler, floor, floor_sampler) -> None:
        out = self.stdout.write
        moves, floor_moves = len(figures.actions), len(floor.actions)
        floor_seconds = floor.finished - floor.started
        out("")
        out(f"the floor: {floor_moves} moves in {floor_seconds:.0f} s, errors {floor.errors}, "
            f"pushes not delivered within 5 s {floor.undelivered}")  # fmt: skip
        for name, values in (("move round trip", floor.actions), ("delivery", floor.deliveries)):
            out(f"  {name:<16} p50 {percentile(values, 50):7.1f} ms   "
                f"p95 {percentile(values, 95):7.1f} ms   "
                f"max {percentile(values, 100):7.1f} ms")  # fmt: skip
        if not moves or not floor_moves:
            out("no moves to compare")
            return
        out("")
        out("CPU per move, the platform beside the floor (ms):")
        out(f"  {'process':<22} {'platform':>9} {'floor':>7} {'ratio':>6}")
        mine, theirs = sampler.cpu_by_kind(), floor_sampler.cpu_by_kind()
        for kind in sorted(set(mine) | set(theirs)):
            out(_compare_line(kind, mine.get(kind), moves, theirs.get(kind), floor_moves))
        out(_compare_line("all", sum(mine.values()), moves, sum(theirs.values()), floor_moves))
        out("")
        out("bytes (median / p95 / max):")
        for name, platform_sizes, floor_sizes in (
            ("answers", figures.answer_sizes, floor.answer_sizes),
            ("pushes", figures.push_sizes, floor.push_sizes),
        ):
            out(f"  {name:<8} platform {_sizes(platform_sizes)}   floor {_sizes(floor_sizes)}")

    def _sampler(self, parts, pids) -> Sampler:
        if pids:
            return Sampler(pids)
        roots, notes = platform_processes(
            Address(parts.hostname, parts.port or 80),
            database=database_address(settings.DATABASES["default"]),
            redis=redis_address(settings.REDIS_URL),
        )
        self.stdout.write("Watching the server's processes:")
        for note in notes:
            self.stdout.write(f"  {note}")
        return Sampler(roots=roots)

    def _delete(self, run: str) -> None:
        """Delete what this run created: its games (with their seats, events and rating
        changes), its players (with their ratings) and their sessions."""
        count, deleted = delete_run(f"load-{run}-", self.sessions)
        self.stdout.write(f"deleted the run's {count} players and their games ({deleted} rows)")

    def _table(self, run: str, number: int, count: int) -> Table:
        users = []
        for seat in range(count):
            name = f"load-{run}-{number}-{seat}"
            user = User(username=name, email=f"{name}@example.invalid")
            user.set_unusable_password()
            user.save()
            users.append(user)
        game = actions.create_game(
            creator=users[0], player_count=count, time_per_move=timedelta(days=1), rated=True
        )
        for user in users[1:]:
            actions.join_game(game_id=game.pk, user=user)
        game, seats = read_game(game.pk)
        if not game.is_playing:
            game = actions.start_game(game_id=game.pk, user=users[0])
            game, seats = read_game(game.pk)
        seat_of = {seat.user_id: seat.number for seat in seats}
        return Table(
            game_id=game.pk,
            state=load_state(game, seats),
            version=game.version,
            players=[self._player(seat_of[user.pk], user) for user in users],
        )

    def _player(self, seat: int, user) -> Player:
        browser = sign_in(user)
        self.sessions.append(browser.session_key)
        return Player(seat, browser.cookie, browser.csrf)

    def _report(self, figures, sampler, games, players, think):
        out = self.stdout.write
        seconds = figures.finished - figures.started
        moves = len(figures.actions)
        out("")
        out(f"{games} games x {players} players, think time {think:g} s (mean), "
            f"{seconds:.0f} s, {figures.games_ended} games played to their end")  # fmt: skip
        out(f"throughput: {moves / seconds:.1f} actions/s ({moves} accepted)")
        for name, values in (
            ("action round trip", figures.actions),
            ("websocket delivery", figures.deliveries),
        ):
            out(f"{name:<20} p50 {percentile(values, 50):7.1f} ms   "
                f"p95 {percentile(values, 95):7.1f} ms   p99 {percentile(values, 99):7.1f} ms   "
                f"max {percentile(values, 100):7.1f} ms   ({len(values)})")  # fmt: skip
        errors = sum(figures.errors.values()) + figures.undelivered
        out(f"errors: {errors}  {dict(figures.errors) or ''}"
            f"  pushes not delivered within 5 s: {figures.undelivered}")  # fmt: skip
        out(f"refused as stale (409): {figures.stale}   other refusals: {figures.refused}   "
            f"forced takes by the server: {figures.forced_takes}")  # fmt: skip
        if moves:
            out(f"answers to moves: mean {figures.answer_bytes / moves / 1024:.1f} KiB, "
                f"{figures.partial_answers} with only the parts that changed")  # fmt: skip
        if figures.pushes:
            out(f"pushes received: {figures.pushes}, "
                f"mean {figures.push_bytes / figures.pushes / 1024:.1f} KiB")  # fmt: skip
        out("server processes:")
        for line in sampler.summary(seconds, moves):
            out(f"  {line}")
        out(f"  (the benchmark's own process: CPU {100 * self.own_cpu / seconds:.0f}%)")


def _compare_line(kind, cpu, moves, floor_cpu, floor_moves) -> str:
    mine = 1000 * cpu / moves if cpu is not None else None
    theirs = 1000 * floor_cpu / floor_moves if floor_cpu is not None else None
    ratio = f"{mine / theirs:5.1f}x" if mine is not None and theirs else "     -"
    shown = [f"{value:9.1f}" if value is not None else "        -" for value in (mine, theirs)]
    return f"  {kind:<22} {shown[0]} {shown[1][2:]} {ratio}"


def _sizes(sizes: list[int]) -> str:
    if not sizes:
        return "-"
    ordered = sorted(sizes)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"{statistics.median(ordered) / 1024:.1f} / {p95 / 1024:.1f} / "
            f"{ordered[-1] / 1024:.1f} KiB")  # fmt: skip


def _cpu_seconds() -> float:
    times = psutil.Process().cpu_times()
    return times.user + times.system


def _reload_state(game_id: int):
    """Read the game; run in a thread of the benchmark's event loop, which Django never closes
    a connection for: it goes back to the pool at once, not when the thread is collected."""
    try:
        game, seats = read_game(game_id)
        return load_state(game, seats), game.version
    finally:
        connection.close()
