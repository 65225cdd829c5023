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

Every page sends live.js's heartbeat (--heartbeat, 25 s). Watchers are signed-in viewers of a
game, not seated, with its page open (loaded, then its socket as the page keeps it): --watchers
N on every game, --watch-one N more on the first. With them it also prints the bytes each
watcher's socket received per move of its game, the delivery of each move to the watchers (from
the move's answer to each watcher's socket), and the resyncs. --watcher-series 0,20,50,200 runs
one step per number, each on new games on the same servers with that many watchers of the first
game (--games 21: one public game watched beside 20 others), and fits the CPU of the steps
against the watchers: the marginal CPU of a watcher per move of its game, in all processes and
per kind (benchmarks/loadtest/series.py).

The CPU per move counts from the moment every page is loaded and every socket open (the play),
to the last move's pushes.

With --floor it also starts the floor (benchmarks/floor/: the least a move can cost on the same
stack, issue 21; drawn by a template since issue 36, --floor-html) beside the platform, on the
same PostgreSQL and Redis servers (a database of its own), plays it with the same load shape
(watchers included) for as long as the platform's run lasted, and prints for each kind of
process the platform's CPU per move, the floor's, and the ratio, and the answer and push bytes
of both. `--floor-html template,fixed` plays both floors one after the other, each beside the
same platform run. --floor-url points it at a floor already running instead (its processes
found by address like the platform's, or named with --floor-pids). In a series the floor plays
each step.

The platform counts sockets per address (LIVE_SOCKETS_PER_ADDRESS, LIVE_CONNECTS_PER_ADDRESS).
Against a --url on the loopback every page's socket comes from a loopback address of its own
(127.36.x.y), as every browser comes from its own; against another host they all come from this
machine's one address, so start the platform there with those raised above the number of
players and watchers. Sockets the server closed are counted as errors, by their close code.
"""

import argparse
import asyncio
import dataclasses
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
from benchmarks.loadtest.bench import HEARTBEAT, Bench, Player, Table, percentile, watcher
from benchmarks.loadtest.floor import Floor, FloorBench, FloorDatabase
from benchmarks.loadtest.processes import (
    Address,
    Sampler,
    database_address,
    platform_processes,
    redis_address,
)
from benchmarks.loadtest.series import Step, fit
from benchmarks.loadtest.sessions import delete_run, sign_in
from games.play import actions
from games.state_store import load_state, read_game

KINDS_SHOWN = ("web (gunicorn)", "web (daphne)", "PostgreSQL", "Redis", "proxy (nginx)",
               "worker/beat (celery)")  # fmt: skip
FLOOR_HTMLS = ("template", "fixed")


@dataclasses.dataclass
class Run:
    """One platform run (a step of a series, or the only one) and the floors' beside it."""

    watch_one: int
    figures: object
    sampler: Sampler
    floors: dict = dataclasses.field(default_factory=dict)  # floor html -> (figures, sampler)


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
            "--watchers",
            type=int,
            default=0,
            help="signed-in viewers of every game, each with the game's page open",
        )
        parser.add_argument(
            "--watch-one", type=int, default=0, help="more signed-in viewers of the first game"
        )
        parser.add_argument(
            "--watcher-series",
            type=_counts,
            help="numbers of watchers of the first game, one run each on the same servers "
            "(e.g. 0,20,50,200): the CPU per watcher per move from their fit",
        )
        parser.add_argument(
            "--heartbeat",
            type=float,
            default=HEARTBEAT,
            help=f"seconds between a page's heartbeats (live.js: {HEARTBEAT:g})",
        )
        parser.add_argument(
            "--warm-up",
            type=float,
            default=10.0,
            help="seconds of play before what is measured, on games of their own, and after "
            "each start of the floor (0: none)",
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
            "--floor-html",
            type=_floor_htmls,
            default=["template"],
            help="the floor's drawing: template (issue 36's), fixed (issue 21's), or both "
            "(template,fixed), each played beside the same platform run",
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
        parser.add_argument(
            "--floor-processes",
            type=int,
            nargs=2,
            default=[2, 6],
            metavar=("DAPHNE", "GUNICORN"),
            help="a started floor's daphne and gunicorn processes (as up --web 2 --http 6)",
        )

    def handle(self, *args, url, games, players, think, seconds, pids, keep, **options):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise CommandError("--url must be http://host:port")
        if games < 1 or think <= 0 or seconds <= 0 or options["heartbeat"] <= 0:
            raise CommandError("--games, --think, --seconds and --heartbeat must be positive")
        if options["warm_up"] < 0:
            raise CommandError("--warm-up must be 0 or more")
        if options["watchers"] < 0 or options["watch_one"] < 0:
            raise CommandError("--watchers and --watch-one must be 0 or more")
        series = options["watcher_series"]
        if series and options["watch_one"]:
            raise CommandError("--watcher-series gives the first game's watchers: no --watch-one")
        if options["floor_url"] and len(options["floor_html"]) > 1:
            raise CommandError("a floor already running (--floor-url) is one floor")
        self.options = {**options, "pids": pids}
        self.think = think
        self.watchers = options["watchers"]
        steps = series or [options["watch_one"]]
        self.stdout.write(f"Setting up {games} games of {players} players...")
        self.run_id = uuid.uuid4().hex[:8]
        self.sessions: list[str] = []
        self.floor = None
        try:
            if options["floor"] or options["floor_url"]:
                self._start_floor(games, players, max(steps), options)
            viewers = self._watchers(self.watchers * games + max(steps))
            self.roots = self._roots(parts, pids)
            if options["warm_up"]:
                self.stdout.write(f"Warming up for {options['warm_up']:g} s (not measured)...")
                self._play("warm", parts, games, players, think, options["warm_up"], viewers,
                           max(steps))  # fmt: skip
            runs = []
            for number, watch_one in enumerate(steps):
                if series:
                    self.stdout.write("")
                    self.stdout.write(f"== step {number + 1} of {len(series)}: "
                                      f"{watch_one} watchers of the first game")  # fmt: skip
                runs.append(self._run(number, parts, games, players, think, seconds, viewers,
                                      watch_one))  # fmt: skip
            if series:
                self._series(runs, games)
        finally:
            if not keep:
                self._delete()
            if self.floor is not None and self.floor.launcher is not None:
                self.floor.stop()

    def _run(self, step, parts, games, players, think, seconds, viewers, watch_one) -> Run:
        sampler = self._new_sampler(pids=self.options["pids"])
        before = _cpu_seconds()
        figures = self._play(step, parts, games, players, think, seconds, viewers, watch_one,
                             on_play=sampler.start)  # fmt: skip
        self.own_cpu = _cpu_seconds() - before
        sampler.stop()
        self._report(figures, sampler, games, players, think)
        run = Run(watch_one, figures, sampler)
        for html in self.options["floor_html"] if self.floor is not None else ():
            run.floors[html] = self._run_floor(
                html, think, figures.finished - figures.started, watch_one
            )
            self._compare(figures, sampler, *run.floors[html], html)
        return run

    def _play(self, step, parts, games, players, think, seconds, viewers, watch_one,
              on_play=None):  # fmt: skip
        """Play new games, the first `watch_one` watchers more, for `seconds`."""
        tables = [self._table(f"{step}-{number}", players) for number in range(games)]
        given = iter(viewers)
        for number, table in enumerate(tables):
            count = self.watchers + (watch_one if number == 0 else 0)
            table.watchers = [watcher(next(given)) for _ in range(count)]
        bench = Bench(
            parts.hostname,
            parts.port or 80,
            f"{parts.scheme}://{parts.netloc}",
            tables,
            think=think,
            seconds=seconds,
            reload_state=_reload_state,
            heartbeat=self.options["heartbeat"],
            on_play=on_play,
        )
        watching = sum(len(table.watchers) for table in tables)
        self.stdout.write(f"Playing ({games * players} players and {watching} watchers, "
                          f"{games * players + watching} websockets)...")  # fmt: skip
        return asyncio.run(bench.run())

    def _watchers(self, count: int) -> list[str]:
        """Sign in `count` watchers (players of no game of the run); return their cookies."""
        cookies = []
        for number in range(count):
            name = f"load-{self.run_id}-w{number}"
            user = User(username=name, email=f"{name}@example.invalid")
            user.set_unusable_password()
            user.save()
            browser = sign_in(user)
            self.sessions.append(browser.session_key)
            cookies.append(browser.cookie)
        return cookies

    def _start_floor(self, games, players, watch_one, options) -> None:
        database = settings.DATABASES["default"]
        if "postgresql" not in database["ENGINE"]:
            raise CommandError("the floor runs on PostgreSQL: set DATABASE_URL to one")
        if not settings.REDIS_URL:
            raise CommandError("the floor runs on Redis: set REDIS_URL")
        parts = urlsplit(settings.REDIS_URL)
        redis_url = urlunsplit(parts._replace(path=f"/{options['floor_redis_db']}"))
        web, http = options["floor_processes"]
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
            web=web,
            http=http,
            html=options["floor_html"][0],
        )
        self.floor_url = options["floor_url"]
        self.floor_pids = options["floor_pids"]
        self.stdout.write(f"Setting up the floor's {games} games...")
        self.floor_tables = self.floor.prepare(games, players, self.watchers, watch_one)
        self.floor_watch_one = watch_one
        if not self.floor_url:
            self._start_the_floor(self.floor.html)

    def _start_the_floor(self, html: str) -> None:
        if self.floor.launcher is not None:
            self.floor.stop()
        self.floor.html = html
        self.floor.start()
        self.floor_url = f"http://127.0.0.1:{self.floor.port}"
        self.stdout.write(f"Started the floor ({html}) at {self.floor_url}")
        warm_up = self.options["warm_up"]
        if warm_up:
            self.stdout.write(f"Warming the floor up for {warm_up:g} s (not measured)...")
            bench = FloorBench(
                "127.0.0.1",
                self.floor.port,
                self.floor_tables,
                think=self.think,
                seconds=warm_up,
                watchers=self.watchers,
                watch_one=self.floor_watch_one,
            )
            asyncio.run(bench.run())

    def _run_floor(self, html, think, seconds, watch_one):
        if self.floor.launcher is not None and self.floor.html != html:
            self._start_the_floor(html)
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
            parts.hostname,
            parts.port or 80,
            self.floor_tables,
            think=think,
            seconds=seconds,
            watchers=self.watchers,
            watch_one=watch_one,
            on_play=sampler.start,
        )
        self.stdout.write(f"Playing the floor ({html}) for {seconds:.0f} s...")
        figures = asyncio.run(bench.run())
        sampler.stop()
        return figures, sampler

    def _compare(self, figures, sampler, floor, floor_sampler, html) -> None:
        out = self.stdout.write
        moves, floor_moves = len(figures.actions), len(floor.actions)
        floor_seconds = floor.finished - floor.started
        out("")
        out(f"the floor ({html}): {floor_moves} moves in {floor_seconds:.0f} s, errors "
            f"{floor.errors}, pushes not delivered within 5 s {floor.undelivered}")  # fmt: skip
        for name, values in (("move round trip", floor.actions), ("delivery", floor.deliveries)):
            out(f"  {name:<16} p50 {percentile(values, 50):7.1f} ms   "
                f"p95 {percentile(values, 95):7.1f} ms   "
                f"max {percentile(values, 100):7.1f} ms")  # fmt: skip
        if floor.watchers:
            out(f"  {floor.watchers} watchers: {_per_watcher_move(floor)} per watcher per move; "
                f"delivery from the answer {_p50_p95(floor.watcher_deliveries)}, "
                f"{floor.watcher_undelivered} not within 5 s")  # fmt: skip
        if not moves or not floor_moves:
            out("no moves to compare")
            return
        out("")
        out(f"CPU per move, the platform beside the floor ({html}) (ms):")
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

    def _series(self, runs: list[Run], games: int) -> None:
        """The steps side by side, and the CPU a watcher adds to a move of its game."""
        out = self.stdout.write
        out("")
        out(f"== the watcher series: the first game watched, beside {games - 1} other games")
        self._series_table("platform", [(run.watch_one, run.figures, run.sampler) for run in runs])
        for html in runs[0].floors:
            self._series_table(
                f"the floor ({html})",
                [(run.watch_one, *run.floors[html]) for run in runs],
            )

    def _series_table(self, name, steps) -> None:
        out = self.stdout.write
        kinds = [kind for kind in KINDS_SHOWN if any(kind in s.cpu_by_kind() for *_, s in steps)]
        short = {kind: _short(kind) for kind in kinds}
        out("")
        out(f"{name}: ms of CPU per move (all moves), by step")
        out(f"  {'watchers':>8} {'moves':>6} {'watched':>7} {'all':>6} "
            + " ".join(f"{short[kind]:>8}" for kind in kinds)
            + f" {'B/watcher/move':>14} {'delivery p50/p95 ms':>20} {'resyncs':>7}")  # fmt: skip
        for watch_one, figures, sampler in steps:
            moves = len(figures.actions)
            cpu = sampler.cpu_by_kind()
            per = {kind: 1000 * cpu.get(kind, 0) / max(moves, 1) for kind in kinds}
            resyncs = getattr(figures, "resyncs", {}).get("watchers", 0)
            bytes_each = (
                figures.watcher_bytes / figures.watcher_moves if figures.watcher_moves else 0
            )
            out(f"  {watch_one:>8} {moves:>6} {figures.watched_moves:>7} "
                f"{1000 * sum(cpu.values()) / max(moves, 1):6.1f} "
                + " ".join(f"{per[kind]:8.1f}" for kind in kinds)
                + f" {bytes_each:14.0f} {_p50_p95(figures.watcher_deliveries):>20} "
                f"{resyncs:>7}")  # fmt: skip
        out(f"{name}: CPU a watcher adds to a move of its game (least squares over the steps: "
            "cpu = a x moves + c x watchers x their game's moves)")  # fmt: skip
        out(f"  {'process':<22} {'c, ms per watcher per move':>28} {'a, ms per move':>15}")
        for kind in [*kinds, "all"]:
            points = [
                Step(
                    len(figures.actions),
                    figures.watcher_moves,
                    sum(sampler.cpu_by_kind().values())
                    if kind == "all"
                    else sampler.cpu_by_kind().get(kind, 0.0),
                )
                for _, figures, sampler in steps
            ]
            found = fit(points)
            if found is None:
                out(f"  {kind:<22} {'cannot tell (too few steps with watchers)':>28}")
                continue
            error = f" ± {1000 * found.error:.3f}" if found.error is not None else ""
            out(f"  {kind:<22} {1000 * found.per_watcher:>18.3f}{error:<10} "
                f"{1000 * found.per_move:>15.1f}")  # fmt: skip

    def _roots(self, parts, pids):
        if pids:
            return None
        roots, notes = platform_processes(
            Address(parts.hostname, parts.port or 80),
            database=database_address(settings.DATABASES["default"]),
            redis=redis_address(settings.REDIS_URL),
        )
        self.stdout.write("Watching the server's processes:")
        for note in notes:
            self.stdout.write(f"  {note}")
        return roots

    def _new_sampler(self, pids) -> Sampler:
        return Sampler(pids) if pids else Sampler(roots=list(self.roots))

    def _delete(self) -> None:
        """Delete what this run created: its games (with their seats, events and rating
        changes), its players and watchers (with their ratings) and their sessions."""
        count, deleted = delete_run(f"load-{self.run_id}-", self.sessions)
        self.stdout.write(f"deleted the run's {count} players and their games ({deleted} rows)")

    def _table(self, number: str, count: int) -> Table:
        users = []
        for seat in range(count):
            name = f"load-{self.run_id}-{number}-{seat}"
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
        closes = sum(figures.server_closes.values())
        errors = sum(figures.errors.values()) + figures.undelivered + closes
        errors += figures.watcher_undelivered
        closed = f"  sockets closed by the server: {figures.server_closes}" if closes else ""
        out(f"errors: {errors}  {dict(figures.errors) or ''}"
            f"  pushes not delivered within 5 s: {figures.undelivered}{closed}")  # fmt: skip
        if 4429 in figures.server_closes:
            out("  (4429: too many sockets from one address: against a host not on the "
                "loopback, start the platform with LIVE_SOCKETS_PER_ADDRESS and "
                "LIVE_CONNECTS_PER_ADDRESS raised)")  # fmt: skip
        out(f"refused as stale (409): {figures.stale}   other refusals: {figures.refused}   "
            f"forced takes by the server: {figures.forced_takes}")  # fmt: skip
        if moves:
            out(f"answers to moves: mean {figures.answer_bytes / moves / 1024:.1f} KiB, "
                f"median {_median_kib(figures.answer_sizes)} KiB, "
                f"{figures.partial_answers} with only the parts that changed")  # fmt: skip
        if figures.pushes:
            out(f"pushes received: {figures.pushes}, "
                f"mean {figures.push_bytes / figures.pushes / 1024:.1f} KiB, "
                f"median {_median_kib(figures.push_sizes)} KiB")  # fmt: skip
        out(f"heartbeats sent: {figures.heartbeats}   resyncs received: players "
            f"{figures.resyncs['players']}, watchers {figures.resyncs['watchers']}   "
            f"syncs asked (a push missing): players {figures.syncs['players']}, "
            f"watchers {figures.syncs['watchers']}")  # fmt: skip
        if figures.watchers:
            out(f"watchers: {figures.watchers} sockets, {figures.watched_moves} moves of their "
                f"games; {_per_watcher_move(figures)} per watcher per move; delivery from the "
                f"answer {_p50_p95(figures.watcher_deliveries)} "
                f"({len(figures.watcher_deliveries)}), {figures.watcher_undelivered} not "
                f"within 5 s")  # fmt: skip
        out("server processes:")
        for line in sampler.summary(seconds, moves):
            out(f"  {line}")
        out(f"  (the benchmark's own process: CPU {100 * self.own_cpu / seconds:.0f}%)")


def _counts(value: str) -> list[int]:
    try:
        counts = [int(part) for part in value.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("numbers separated by commas, e.g. 0,20,50,200") from None
    if len(counts) < 2 or min(counts) < 0:
        raise argparse.ArgumentTypeError("two numbers of watchers or more, each 0 or more")
    return counts


def _floor_htmls(value: str) -> list[str]:
    htmls = value.split(",")
    if not htmls or any(html not in FLOOR_HTMLS for html in htmls) or len(set(htmls)) < len(htmls):
        raise argparse.ArgumentTypeError("template, fixed, or template,fixed")
    return htmls


def _short(kind: str) -> str:
    return kind.split("(")[-1].rstrip(")") if "(" in kind else kind


def _per_watcher_move(figures) -> str:
    if not figures.watcher_moves:
        return "-"
    return f"{figures.watcher_bytes / figures.watcher_moves / 1024:.2f} KiB"


def _p50_p95(values) -> str:
    if not values:
        return "-"
    return f"{percentile(values, 50):.0f} / {percentile(values, 95):.0f} ms"


def _median_kib(sizes) -> str:
    return f"{statistics.median(sizes) / 1024:.1f}" if sizes else "-"


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
