"""CPU of a move's answer in one process, through Django's whole stack (the test client, CSRF
checked, the page's headers), as a gunicorn worker spends it: the platform as it is, and the
platform with its answers drawn as a fixed 2 KB body, as the floor answers (what a move costs
besides drawing). Beside the floor's own in-process figures (benchmarks/floor/inproc.py), run in
a child process on the same database server and Redis: the floor drawn by its template (issue
36's) and the floor of fixed 2 KB (issue 21's).

    python -m benchmarks answer-cost

(with DATABASE_URL and REDIS_URL set; MICROCHIP_ANSWERCOST_MOVES sets how many moves are timed
in each series, 600 by default, after MICROCHIP_ANSWERCOST_WARM_UP moves, 100). Each series
plays 2-player games with the rules package's greedy player, each move posted by its player's
page as live.js posts it (htmx, X-Page-Version, X-Page-Looks kept as the page keeps them); the
forced takes of the worker are made directly and not timed. Both pages are open, so each is
recorded in the game's presence as its socket records it (games/presence.py): nobody is emailed
that it is their turn while they look at the game, as in `benchmarks load`, whose pages beat.
With MICROCHIP_ANSWERCOST_AWAY=1 they are not, and every turn writes an email to the outbox.
It prints milliseconds of CPU per move (time.process_time: the median and the mean of the moves
after the warm-up), and deletes what it created.
"""

import os
import statistics
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import reverse

from benchmarks.loadtest.floor import FLOOR_DIR, Floor, FloorDatabase
from benchmarks.loadtest.page import PageLooks
from games import presence
from games.models import Game
from games.play import actions, views
from games.rules.greedy import next_action
from games.state_store import load_state, read_game

HTMX = {"HTTP_HX_REQUEST": "true"}
CSRF = "a" * 32
FIXED_ANSWER = b"x" * 2048
# Where `benchmarks load` puts the floor by default (its --floor-database and --floor-redis-db).
FLOOR_DATABASE = "bench_floor"
FLOOR_REDIS_DB = 13


def main():
    moves = int(os.environ.get("MICROCHIP_ANSWERCOST_MOVES", "600"))
    warm_up = int(os.environ.get("MICROCHIP_ANSWERCOST_WARM_UP", "100"))
    run = uuid.uuid4().hex[:8]
    players = [_player(f"answercost-{run}-{seat}") for seat in range(2)]
    try:
        with override_settings(ACTION_RATE_LIMIT="1000000/m"):
            drawn = _series(players, moves + warm_up)
            fixed = _series(players, moves + warm_up, fixed=True)
    finally:
        Game.objects.filter(created_by__in=players).delete()
        for player in players:
            player.delete()
    floors = [_floor(moves, warm_up, html) for html in ("template", "fixed")]
    print(f"ms of CPU per move in one process, {moves} moves after {warm_up} to warm up:")
    print(f"  {'':42} {'median':>7} {'mean':>7} {'answer':>8}")
    for name, (times, sizes) in (
        ("platform", drawn),
        ("platform, answers a fixed 2 KB (no drawing)", fixed),
    ):
        print(_line(name, times[warm_up:], sizes))
    for floor in floors:
        print(f"  floor: {floor}")


def _line(name, times, sizes):
    return (
        f"  {name:42} {1000 * statistics.median(times):7.2f} {1000 * statistics.mean(times):7.2f}"
        f" {statistics.median(sizes):7.0f} B"
    )


def _player(name):
    from accounts.models import User

    user = User(username=name, email=f"{name}@example.invalid")
    user.set_unusable_password()
    user.save()
    return user


def _series(players, count: int, *, fixed: bool = False):
    """Seconds of CPU of each of `count` moves, and each answer's bytes."""
    clients = []
    for player in players:
        client = Client(enforce_csrf_checks=True, HTTP_HOST=_host())
        client.force_login(player)
        client.cookies[settings.CSRF_COOKIE_NAME] = CSRF
        clients.append(client)
    undraw = _fixed_answers() if fixed else None
    times, sizes = [], []
    try:
        while len(times) < count:
            _play_one_game(players, clients, times, sizes, count)
    finally:
        if undraw:
            undraw()
    return times, sizes


def _host() -> str:
    """A host the settings allow (the test client's own is not, outside the tests)."""
    allowed = [host for host in settings.ALLOWED_HOSTS if host not in ("*", "")]
    return allowed[0].lstrip(".") if allowed else "localhost"


def _play_one_game(players, clients, times, sizes, count):
    game = actions.create_game(
        creator=players[0], player_count=2, time_per_move=timedelta(days=1), rated=False
    )
    actions.join_game(game_id=game.pk, user=players[1])
    if not os.environ.get("MICROCHIP_ANSWERCOST_AWAY"):
        for player in players:  # what each page's socket records on connecting
            presence.arrive(game.pk, player.pk, f"answercost-page-{player.pk}")
    act_url = reverse("games:act", args=[game.pk])
    fragment_url = reverse("games:fragment", args=[game.pk])
    drawing = views.render is not _fixed_render
    pages = [PageLooks() for _ in clients]
    for page, client in zip(pages, clients, strict=True):
        if drawing:
            page.load(client.get(fragment_url, **HTMX).content.decode())
    while len(times) < count:
        game, seats = read_game(game.pk)
        if game.status != Game.Status.PLAYING:
            return
        found = next_action(load_state(game, seats))
        if found is None:
            return
        seat, action = found
        mover = next(s.user_id for s in seats if s.number == seat)
        number = next(n for n, player in enumerate(players) if player.pk == mover)
        started = time.process_time()
        response = clients[number].post(
            act_url,
            action.to_json(),
            **HTMX,
            HTTP_X_CSRFTOKEN=CSRF,
            HTTP_X_PAGE_ID="p" * 16,
            HTTP_X_PAGE_VERSION=str(game.version),
            HTTP_X_PAGE_LOOKS=pages[number].header(),
        )
        times.append(time.process_time() - started)
        assert response.status_code in (200, 204), (response.status_code, action)
        sizes.append(len(response.content))
        actions.take_last_tile(game_id=game.pk)  # the worker's, at once and not timed
        if not drawing:
            continue
        if response.get("X-Game-Parts") == "changed":
            pages[number].swap(response.content.decode())
        elif response.status_code == 200:
            pages[number].load(response.content.decode())
        # The other page as its pushes leave it: drawn again, not timed (daphne's work).
        other = 1 - number
        pages[other].load(clients[other].get(fragment_url, **HTMX).content.decode())


def _fixed_render(*args, **kwargs):
    return HttpResponse(FIXED_ANSWER)


def _fixed_answers():
    """Answer every move with FIXED_ANSWER, drawing nothing (the floor's answer); return the
    undo."""
    game_view, changed_parts, render = views.game_view, views._changed_parts, views.render
    views.game_view = lambda *args, **kwargs: None
    views._changed_parts = _fixed_render
    views.render = _fixed_render

    def undo():
        views.game_view, views._changed_parts, views.render = (
            game_view,
            changed_parts,
            render,
        )

    return undo


def _floor(moves: int, warm_up: int, html: str) -> str:
    """The floor's in-process figure, in a process of its own (its own Django project), on the
    platform's PostgreSQL server and Redis as the load benchmark puts it (`load --floor`); `html`
    is the floor's drawing (FLOOR_HTML)."""
    database = settings.DATABASES["default"]
    if "postgresql" not in database["ENGINE"]:
        return "not run: the floor runs on PostgreSQL (set DATABASE_URL to one)"
    if not settings.REDIS_URL:
        return "not run: the floor runs on Redis (set REDIS_URL)"
    parts = urlsplit(settings.REDIS_URL)
    floor = Floor(
        Path(settings.VAR_DIR) / "floor",
        FloorDatabase(
            database["HOST"] or "127.0.0.1",
            int(database["PORT"] or 5432),
            FLOOR_DATABASE,
            database["USER"] or "postgres",
            database["PASSWORD"] or "",
        ),
        urlunsplit(parts._replace(path=f"/{FLOOR_REDIS_DB}")),
        port=0,
        html=html,
    )
    floor.prepare(games=1, players=2)
    done = subprocess.run(
        [sys.executable, str(FLOOR_DIR / "inproc.py"), str(moves + warm_up), str(warm_up)],
        cwd=FLOOR_DIR,
        capture_output=True,
        text=True,
        check=False,
        env=floor.env,
    )
    if done.returncode:
        return f"did not run: {done.stderr.strip().splitlines()[-1:]}"
    return done.stdout.strip().splitlines()[-1]
