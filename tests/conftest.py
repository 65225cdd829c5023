import os
import re
import shutil
import subprocess
import sys
import uuid
from datetime import timedelta

import pytest
import pytest_asyncio
from allauth.account.models import EmailAddress
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.test.signals import setting_changed

from accounts.models import User
from games import effects
from games.drawing import cache
from games.live import pushes as live
from games.play import actions
from infra.services import private_redis
from tests import tiers


def pytest_configure(config):
    if (config.getoption("numprocesses", None) or config.getoption("tx", None)) and (
        not config.pluginmanager.has_plugin("tests.xdist_workers")
    ):
        raise pytest.UsageError(
            "run the workers with `python3 manage.py test -n N`: each needs a Redis of its own"
        )
    # Unit tests run Celery tasks in-process, at once; the worker tests start a real worker.
    from microchip_site.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    # The changes queue tasks by name (games/effects.py): registered here, they run eagerly.
    import games.tasks
    import games.tournaments.tasks  # noqa: F401

    # The engine's review of every game a test ends (an eager task) with a small budget, and
    # no puzzles cut from it but where a test asks (tests/review, tests/puzzles).
    settings.ENGINE_REVIEW = {
        "iterations": 40,
        # No calibration against the solver: a few solves of a 3-player game's final tiles took
        # 27-34 s of CPU whatever the budget (the tests/rules of the engine calibrate).
        "samples": 0,
        "cpu_seconds": 5.0,
        # Hindsight's solves were nearly three quarters of a review's CPU at 3 of 5,000 nodes; the
        # tests of hindsight itself (tests/rules/test_review.py) give it their own.
        "hindsight_solves": 2,
        "hindsight_nodes": 1_000,
    }
    settings.CUT_PUZZLES_AFTER_REVIEW = False
    # And the best arrangement of each seat's final tiles (the analysis, also an eager task when
    # a game ends) under a fifth of a second a seat, not five: a whole game's test spent a
    # tenth of its CPU there at half a second. The tests of the solver give it more.
    settings.ANALYSIS_TIME_LIMIT = 0.2
    # The expert computer player on the platform (games/bots/turns.py) searches as little.
    settings.BOT_EXPERT_OPTIONS = {"iterations": 40, "arrange_nodes": 500, "time_cap": 2.0}
    # Hashing passwords slowly on purpose is for production, not for a test's made-up players.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The manifest storage needs `collectstatic` first; the suite checks pages, not the build.
    settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.STORAGES = storages
    # Drop any storage built before this point, as override_settings would.
    setting_changed.send(sender=None, setting="STORAGES", value=storages, enter=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """A test that starts servers, browsers or workers through its fixtures is marked `servers`
    (or `slow`), or fails here before they start (tests/tiers.py)."""
    tiers.refuse_unmarked(item)


# Tests that start and stop the whole platform many times, mostly waiting on processes: run
# early, beside the other workers' tests in one process. Run last, as their place in the
# alphabet had them, they ran beside three browsers and their servers, and took 415-605 s of
# the run's 25 minutes instead of about 170 (docs/testing.md).
EARLY_FILES = ("tests/site/test_up_command.py",)


def pytest_collection_modifyitems(config, items):
    """Run the asyncio tests (websockets) first: the browser tests' Playwright (sync API) keeps
    an event loop running in the main thread once it has started, and asyncio cannot start
    another. (tests/e2e puts the browser tests last.) Then `EARLY_FILES`."""
    asyncio = [item for item in items if item.get_closest_marker("asyncio")]
    early = [item for item in items if item.nodeid.startswith(EARLY_FILES)]
    chosen = {id(item) for item in (*asyncio, *early)}
    items[:] = asyncio + early + [item for item in items if id(item) not in chosen]


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's language: a request the test client made in another one
    leaves it active in the thread, as a request in a real server would for its own thread."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _isolated_cache():
    """Give each test empty rate-limit counters and cache, and empty caches of this process
    (logs, drawings: keyed by game ids, which a rolled-back test gives out again)."""
    from django.core.cache import cache

    from infra import lru

    cache.clear()
    lru.clear_all()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _no_layer_watch_in_process(settings):
    """In-process sockets run on the test's own event loop, which ends with the test: a watch of
    the channel layer left running there is cancelled in the middle of the layer's receive, whose
    clean-up waits on a connection being closed, and the loop never ends. The watch is tested on
    real daphne processes (tests/faults)."""
    settings.LIVE_LAYER_WATCH_SECONDS = 0


# --- shared by every test package ---------------------------------------------------------------


def without_request_echoes(page: bytes) -> bytes:
    """A page's bytes without what merely echoes the request: its CSRF tokens (Django masks the
    token afresh in every answer) and the language form's `next` (the address asked for). Two
    answers that tell the same thing are equal then."""
    return re.sub(
        rb'("X-CSRFToken": "|name="csrfmiddlewaretoken" value="|name="next" value=")[^"]+',
        rb"\1",
        page,
    )


def new_player(username):
    """Create a player whose email address is confirmed."""
    user = User.objects.create_user(username, f"{username}@example.com", "a-long-Passphrase-42")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


@pytest.fixture
def make_player(db):
    return new_player


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a call and then its on-commit side effects (the queued tasks and emails)."""

    def run(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return run


@pytest.fixture
def lost_tasks(monkeypatch):
    """`lost = lost_tasks("infra.send_email", ...)`: the tasks of those names that the changes
    queue (games/effects.py) are lost, as if the broker had dropped them, and listed in `lost`;
    the others run as usual."""
    lost, names = [], set()
    real = effects.Task.apply_async

    def apply_async(task):
        if task.name in names:
            lost.append(task)
        else:
            real(task)

    monkeypatch.setattr(effects.Task, "apply_async", apply_async)

    def lose(*more):
        names.update(more)
        return lost

    return lose


@pytest.fixture
def players(make_player):
    return [make_player(name) for name in ("ada", "brian", "chloe", "dmitri", "esme")]


@pytest.fixture
def start_game(players, django_capture_on_commit_callbacks):
    """Return a started game of `count` players (the first `count` players), seat order drawn."""

    def start(count=2, **options):
        options.setdefault("time_per_move", timedelta(days=1))
        game = actions.create_game(creator=players[0], player_count=count, **options)
        with django_capture_on_commit_callbacks(execute=True):
            for player in players[1:count]:
                actions.join_game(game_id=game.pk, user=player)
        game.refresh_from_db()
        return game

    return start


@pytest.fixture(scope="session")
def redis_url():
    """The run's Redis: REDIS_URL when set (CI, manage.py test), else a private one."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    with private_redis() as url:
        yield url


@pytest.fixture
def live_layer(redis_url, settings):
    """The real Redis channel layer, with a prefix of this test's own (so no message or group
    outlives the test), and the live layer's drawings and pause forgotten."""
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [redis_url], "prefix": f"test-{uuid.uuid4().hex[:8]}"},
        }
    }
    cache.forget()
    live._paused_until = 0.0
    live._held.clear()


@pytest_asyncio.fixture
async def closes_thread_connections():
    """Close the connections the ORM opened in asgiref's worker thread (the tests'
    sync_to_async and the consumers' database_sync_to_async), so the test database can be
    flushed or dropped."""
    yield
    await sync_to_async(connections.close_all)()


def database_url() -> str:
    """The test database as a DATABASE_URL for another process (a worker, a server)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    at = "@" if user else ""
    return f"postgres://{user}{password}{at}{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


REVIEW_ENVIRONMENT = {
    # As the suite's own review (the fixture above says why). With hindsight's default budget, a
    # server's worker spent 3-13 s of CPU on each game a browser test finished, beside the
    # browsers, and the test's end waited for it.
    "ENGINE_REVIEW_CPU_SECONDS": "5",
    "ENGINE_REVIEW_SAMPLES": "0",
    "ENGINE_REVIEW_ITERATIONS": "40",
    "ENGINE_REVIEW_HINDSIGHT_SOLVES": "2",
    "ENGINE_REVIEW_HINDSIGHT_NODES": "1000",
    "ANALYSIS_TIME_LIMIT": "0.2",
    "CUT_PUZZLES_AFTER_REVIEW": "false",
}


def server_environment(*, redis_url: str, workdir, site_url: str = "", **extra) -> dict:
    """The environment of a daphne or a worker started on the test database and `redis_url`:
    the test run's secret key, production settings (DEBUG off), plain http on the loopback."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "SECRET_KEY": settings.SECRET_KEY,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Plain http on the loopback: a browser must keep the cookies.
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "MICROCHIP_VAR_DIR": str(workdir),
        "PYTHONUNBUFFERED": "1",
        # As in the suite's own process (above): the review of a game a test ends gets a small
        # budget and cuts no puzzles. At the default budget (up to 2 minutes of CPU a game) a
        # server's worker reviewing the games its tests finished took the cores of the browser
        # tests running beside it, and their pages timed out.
        **REVIEW_ENVIRONMENT,
        **extra,
    }
    if site_url:
        env["SITE_URL"] = site_url
    return env


def unconfigured_environment(var_dir) -> dict:
    """The environment of a machine with nothing configured (SQLite and a private Redis, a
    secret key of its own), its var directory at `var_dir`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY")
    }
    env["MICROCHIP_VAR_DIR"] = str(var_dir)
    return env


@pytest.fixture(scope="session")
@tiers.starts_processes("manage.py migrate and collectstatic")
def first_up_leftovers(tmp_path_factory):
    """A var directory as the first `manage.py up` of an unconfigured machine leaves it: the
    SQLite database migrated and the static files collected. Made once per test process; see
    `after_a_first_up`."""
    var_dir = tmp_path_factory.mktemp("first-up")
    env = unconfigured_environment(var_dir)
    for command in (["migrate", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run(
            [sys.executable, "manage.py", *command], cwd=settings.BASE_DIR, env=env, check=True
        )
    return var_dir


@pytest.fixture
def after_a_first_up(tmp_path, first_up_leftovers):
    """The test's `tmp_path`, as the var directory of an `up` started before: the database
    migrated, the static files collected. An `up` started on it migrates and collects nothing:
    a fresh migration costs 8 s of CPU, paid here once per test process instead of once per
    test. The tests of the first start itself (tests/site/test_up_command.py) start empty."""
    database = first_up_leftovers / "microchip.sqlite3"
    shutil.copy2(database, tmp_path / database.name)
    shutil.copytree(first_up_leftovers / "static", tmp_path / "static")
    return tmp_path


def settings_in_a_new_process(probe: str, workdir, **environment):
    """Run `probe` (Python that sets Django up and prints what it reads) in a new process whose
    environment holds only `environment`: the settings as a fresh start would make them."""
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "microchip_site.settings",
        "MICROCHIP_VAR_DIR": str(workdir),
        **environment,
    }
    return subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
