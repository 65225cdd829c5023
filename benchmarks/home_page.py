"""The home page's cost for a visitor (issue 39): the CPU to draw it in one process, through
Django's whole stack (the test client: the middleware, the session, the template), and its size.

    python -m benchmarks home [--runs 200] [--warm-up 20]

On the environment's database (DATABASE_URL, or SQLite in var/; `manage.py migrate` first),
with the static files collected as `up` collects them.
It adds a few tables waiting for players and games in progress, so that the lists have rows to
draw, and removes them at the end. Prints the HTML's bytes and the milliseconds of CPU per page
(time.process_time): the median, the mean and the 95th percentile, after the warm-up. The
target: under 100 ms at the median, under 50 KB (docs/performance.md).
"""

import argparse
import statistics
import time
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import Game
from games.play import actions

TARGET_MS = 100
MAX_BYTES = 50 * 1024


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks home",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=200, help="timed page loads")
    parser.add_argument("--warm-up", type=int, default=20, help="page loads before the timing")
    parser.add_argument("--settings", help="the settings module (DJANGO_SETTINGS_MODULE)")
    parser.add_argument("--pythonpath", help="a directory to add to the Python path")
    return parser


def measure(runs: int, warm_up: int = 5) -> dict:
    """Draw the home page `warm_up` + `runs` times as a visitor; its size and CPU figures."""
    # At the site's own address: the one its ALLOWED_HOSTS name and its pages redirect to.
    client = Client(HTTP_HOST=urlsplit(settings.SITE_URL).netloc)
    url = reverse("home")
    sizes = set()
    for _ in range(warm_up):
        client.get(url)
    spent = []
    for _ in range(runs):
        start = time.process_time()
        response = client.get(url)
        spent.append((time.process_time() - start) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"the home page answered {response.status_code}")
        sizes.add(len(response.content))
    spent.sort()
    return {
        "bytes": max(sizes),
        "median_ms": statistics.median(spent),
        "mean_ms": statistics.fmean(spent),
        "p95_ms": spent[min(len(spent) - 1, int(len(spent) * 0.95))],
        "runs": runs,
    }


def with_site_content():
    """Players, three tables waiting and three games in progress (people only: no computer
    player's move is queued to a worker that may not run)."""
    tag = uuid.uuid4().hex[:6]
    people = [User.objects.create_user(f"bench-home-{tag}-{n}", password=None) for n in range(4)]
    made = []
    for n, person in enumerate(people[:3]):
        day = timedelta(days=1)
        made.append(
            actions.create_game(creator=person, player_count=3, time_per_move=day, name=f"T{n}")
        )
        playing = actions.create_game(creator=person, player_count=2, time_per_move=day)
        actions.join_game(game_id=playing.pk, user=people[3])
        made.append(playing)
    return people, made


def main(argv) -> int:
    options = build_parser().parse_args(argv)
    if options.runs < 1 or options.warm_up < 0:
        print("python -m benchmarks home: need --runs >= 1 and --warm-up >= 0")
        return 2
    # The page names its static files by their collected, hashed names, as in production.
    call_command("collectstatic", interactive=False, verbosity=0)
    people, made = with_site_content()
    try:
        found = measure(options.runs, options.warm_up)
    finally:
        Game.objects.filter(pk__in=[game.pk for game in made]).delete()
        User.objects.filter(pk__in=[person.pk for person in people]).delete()
    print(f"home page for a visitor: {found['bytes']} bytes (at most {MAX_BYTES})")
    print(
        f"CPU per page over {found['runs']} loads: median {found['median_ms']:.1f} ms, "
        f"mean {found['mean_ms']:.1f} ms, 95th percentile {found['p95_ms']:.1f} ms "
        f"(target: median under {TARGET_MS} ms)"
    )
    return 0
