"""Soak test: players on a running platform for a long time, and the curve of what it holds.

Start the platform with the database, Redis and secret key this command will use (the same
DATABASE_URL, REDIS_URL and MICROCHIP_VAR_DIR or SECRET_KEY), DEBUG off, then for example:

    python -m benchmarks soak --url http://127.0.0.1:8000 --minutes 60

For `--minutes`, seatings of `--players` people play game after game (benchmarks/loadtest/soak.py
says how): they join over HTTP, move through the act endpoint, keep their pages'
sockets open, and drop them and come back; every `--close-every` seconds a socket is opened that
the server must close (4404, 4401, 4408). Every `--sample` seconds the platform's daphne,
gunicorn and Celery processes (found by --url as the load benchmark finds them, or --pids) and
its Redis are sampled (benchmarks/loadtest/curve.py). When the time is up every socket is
closed and the command waits (at most `--settle` seconds) for the queues, consumers and sockets
to come back to where they were before; then it prints the curve, each process's first and
last figures, and the verdict: memory and descriptors flat over the second half, queues back.
With `--fail-on-leak` it exits 1 when the verdict is not clean. SIGINT (Ctrl+C) or SIGTERM ends
the load early, and the rest follows. At the end it deletes the players, games and sessions it
created (--keep leaves them).
"""

import asyncio
import signal
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from accounts.models import User
from benchmarks.loadtest import curve
from benchmarks.loadtest.client import HTTPConnection
from benchmarks.loadtest.processes import Address, platform_processes
from benchmarks.loadtest.sessions import delete_run, sign_in
from benchmarks.loadtest.soak import NO_SUCH_GAME, NOT_SIGNED_IN, TOO_MANY, Person, Soak
from games.play import actions
from games.state_store import load_state, read_game

FLOODERS = 3
# Each ends the load early; the report and the clean-up still follow (a background job of a
# shell starts with SIGINT ignored, so SIGTERM too).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Command(BaseCommand):
    help = "Play on a running platform for a long time; print the curve of its memory, file "
    help += "descriptors, sockets and queues, and whether they stay flat."

    def add_arguments(self, parser):
        parser.add_argument("--url", required=True, help="the platform, e.g. http://127.0.0.1:8000")
        parser.add_argument("--minutes", type=float, default=60.0, help="how long the load lasts")
        parser.add_argument("--games", type=int, default=10, help="tables played at once")
        parser.add_argument("--players", type=int, default=2, choices=range(2, 6))
        parser.add_argument("--think", type=float, default=2.0, help="mean seconds per move")
        parser.add_argument(
            "--sample", type=float, default=60.0, help="seconds between samples of the platform"
        )
        parser.add_argument(
            "--drop-every",
            type=float,
            default=120.0,
            help="mean seconds between two drops of one player's socket",
        )
        parser.add_argument(
            "--close-every",
            type=float,
            default=10.0,
            help="seconds between two sockets the server must close (4404, 4401, 4408 in turn)",
        )
        parser.add_argument(
            "--settle",
            type=float,
            default=120.0,
            help="at most this many seconds to wait, after the load, for the queues to empty",
        )
        parser.add_argument(
            "--pids", type=int, nargs="*", help="the processes to watch (by default --url's)"
        )
        parser.add_argument("--keep", action="store_true", help="leave the players and games")
        parser.add_argument(
            "--fail-on-leak", action="store_true", help="exit 1 unless the verdict is clean"
        )

    def handle(self, *args, url, minutes, games, players, think, sample, drop_every,
               close_every, settle, pids, keep, fail_on_leak, **options):  # fmt: skip
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise CommandError("--url must be http://host:port")
        if min(minutes, games, think, sample, drop_every, close_every) <= 0 or settle < 0:
            raise CommandError("--minutes, --games, --think, --sample and the intervals must be "
                               "positive")  # fmt: skip
        if not settings.REDIS_URL:
            raise CommandError(
                "REDIS_URL is not set: give this command the platform's (the one `manage.py up` "
                "prints), so that it can read the queues and the channel layer"
            )
        self.run, self.url_parts = uuid.uuid4().hex[:8], parts
        self.sessions: list[str] = []
        try:
            clean = self._soak(parts, minutes, games, players, think, sample, drop_every,
                               close_every, settle, pids)  # fmt: skip
        finally:
            if not keep:
                self._delete()
        if fail_on_leak and not clean:
            raise CommandError("the verdict is not clean (see above)")

    def _soak(self, parts, minutes, games, players, think, sample, drop_every, close_every,
              settle, pids) -> bool:  # fmt: skip
        out = self.stdout.write
        host, port = parts.hostname, parts.port or 80
        out(f"Setting up {games} tables of {players} players...")
        seatings = [[self._person(f"{table}-{seat}") for seat in range(players)]
                    for table in range(games)]  # fmt: skip
        flooders = [self._person(f"flood-{number}") for number in range(FLOODERS)]
        soak = Soak(
            host, port, f"http://{parts.netloc}", seatings, flooders,
            think=think, seconds=minutes * 60, drop_every=drop_every, close_every=close_every,
            new_game=_new_game, load_game=_load_game, reload_state=_reload_state,
        )  # fmt: skip
        watcher = self._watcher(host, port, pids, sample, soak)
        baseline = watcher.sample("before")
        out(f"Playing for {minutes:g} min, a sample every {sample:g} s (the full table and the "
            "verdict at the end):")  # fmt: skip
        roles = curve.roles_in([baseline])
        out(f"  {curve.header(roles)}")
        out(f"  {curve.row(baseline, roles)}")
        self.stdout.flush()

        def show(taken):
            self.stdout.write(f"  {curve.row(taken, roles)}")
            self.stdout.flush()

        watcher.on_sample = show
        watcher.begin_load()
        try:
            figures = asyncio.run(_until_stopped(soak))
        finally:
            watcher.end_load()
        out(f"Load over; waiting up to {settle:g} s for the queues and consumers to settle...")
        came_back, waited = watcher.settle(baseline, settle)
        return self._report(watcher, baseline, figures, came_back, waited)

    def _person(self, name: str) -> Person:
        username = f"soak-{self.run}-{name}"
        user = User(username=username, email=f"{username}@example.invalid")
        user.set_unusable_password()
        user.save()
        browser = sign_in(user)
        self.sessions.append(browser.session_key)
        return Person(user.pk, browser.cookie, browser.csrf, *_connections(self.url_parts))

    def _watcher(self, host, port, pids, interval, soak) -> curve.Watcher:
        roots = []
        if not pids:
            roots, notes = platform_processes(Address(host, port))
            self.stdout.write("Watching the platform's processes:")
            for note in notes:
                self.stdout.write(f"  {note}")

        def client() -> dict:
            return {"sockets": len(soak.sockets), "moves": len(soak.figures.actions)}

        prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
        return curve.Watcher(roots, settings.REDIS_URL, prefix, interval, client, pids=pids)

    def _report(self, watcher, baseline, figures, came_back, waited) -> bool:
        out = self.stdout.write
        samples = watcher.samples
        seconds = figures.finished - figures.started
        out("")
        out("The curve (memory in MiB; fds: open descriptors, own: those that are not client "
            "sockets, held: client sockets; queue: Celery's; unack: delivered, not acknowledged; "
            "consumers: the channel layer's, one per open socket; groups: groups listened to; "
            "sockets: the players' open sockets; moves: accepted so far):")  # fmt: skip
        for line in curve.table(samples):
            out(f"  {line}")
        out("")
        out("Each process, first and last sample of the load:")
        for line in curve.per_process(samples):
            out(f"  {line}")
        out("")
        out(f"players: {seconds / 60:.1f} min, {figures.games_started} games started, "
            f"{figures.games_ended} played to their end, {figures.games_unfinished} in play at "
            f"the end; {len(figures.actions)} moves accepted, {figures.page_loads} page loads, "
            f"{figures.pushes} pushes received, {figures.heartbeats} heartbeats sent")  # fmt: skip
        out(f"sockets dropped: {figures.drops['closed']} closed by their page, "
            f"{figures.drops['cut']} cut; {figures.reconnects} reconnected")  # fmt: skip
        closes = []
        for code in (NO_SUCH_GAME, NOT_SIGNED_IN, TOO_MANY):
            got = figures.closed[(code, code)]
            other = {
                str(found): count
                for (asked, found), count in figures.closed.items()
                if asked == code and found != code
            }
            closes.append(f"{code} asked {figures.asked[code]}, closed so {got}"
                          + (f" (otherwise: {other})" if other else ""))  # fmt: skip
        out(f"server closes: {'; '.join(closes)}")
        errors = sum(figures.errors.values())
        out(f"errors: {errors}  {dict(figures.errors) or ''}  (refused as stale: "
            f"{figures.stale}, other refusals: {figures.refused}, tables not started: "
            f"{figures.tables_not_started})")  # fmt: skip
        load = [sample.load for sample in samples if sample.phase == "load"]
        if load:
            out(f"machine load average (1 min) during the load: {min(load):.2f} to "
                f"{max(load):.2f}, mean {sum(load) / len(load):.2f}")  # fmt: skip
        out("")
        out("verdict:")
        trends = curve.trends(samples)
        if not trends:
            out("  too few samples for a trend (at least 4 during the load: lower --sample)")
        for trend in trends:
            out(f"  {trend.line()}")
        parts = curve.settled_parts(baseline, samples[-1])
        missing = [name for name, done in parts.items() if not done]
        if came_back:
            out(f"  queues, consumers and sockets back to where they were before the load in "
                f"{waited:.0f} s: {', '.join(parts)}")  # fmt: skip
        else:
            out(f"  NOT BACK after {waited:.0f} s: {', '.join(missing)}")
        closes_done = all(
            figures.closed[(code, code)] == figures.asked[code]
            for code in (NO_SUCH_GAME, NOT_SIGNED_IN, TOO_MANY)
        )
        clean = bool(trends) and all(t.flat for t in trends) and came_back and closes_done
        out(f"  {'clean' if clean else 'NOT CLEAN'}")
        return clean

    def _delete(self) -> None:
        count, deleted = delete_run(f"soak-{self.run}-", self.sessions)
        self.stdout.write(f"deleted the run's {count} players and their games ({deleted} rows)")


async def _until_stopped(soak: Soak):
    loop = asyncio.get_running_loop()
    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, soak.stop)
    return await soak.run()


def _connections(parts) -> tuple[HTTPConnection, HTTPConnection]:
    return tuple(HTTPConnection(parts.hostname, parts.port or 80) for _ in range(2))


# Run in threads of the players' event loop, which Django never closes a connection for: each
# closes its own, so that it goes back to the pool (or SQLite's file is let go) at once.


def _new_game(creator_id: int, players: int) -> tuple[int, int]:
    try:
        creator = User.objects.get(pk=creator_id)
        game = actions.create_game(
            creator=creator, player_count=players, time_per_move=timedelta(days=1), rated=True
        )
        return game.pk, game.version
    finally:
        connection.close()


def _load_game(game_id: int):
    try:
        game, seats = read_game(game_id)
        state = load_state(game, seats) if game.is_playing else None
        return state, game.version, {seat.user_id: seat.number for seat in seats}, game.is_playing
    finally:
        connection.close()


def _reload_state(game_id: int):
    try:
        game, seats = read_game(game_id)
        return load_state(game, seats), game.version
    finally:
        connection.close()
