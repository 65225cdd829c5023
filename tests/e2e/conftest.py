"""Browser tests: Debian's Chromium driven by Playwright against the real ASGI app.

The server under test is daphne (HTTP and websockets) with a Celery worker, both started as
processes on the test database and the Redis of the run. Each test gets browser contexts logged
in as its players. The README's screenshots (docs/screenshots/) are written only when
MICROCHIP_SCREENSHOTS is set, as `manage.py screenshots` sets it: a test run writes no tracked file.
"""

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from infra.services import free_port
from tests.conftest import new_player, server_environment
from tests.tiers import starts_processes

# Playwright's sync API runs an event loop in the test's thread; the ORM calls beside it are
# ordinary blocking calls made on purpose.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"


def pytest_collection_modifyitems(config, items):
    browser_tests = [item for item in items if "tests/e2e/" in str(item.fspath)]
    # Last: Playwright's sync API keeps an event loop in the main thread until the session ends,
    # and asyncio tests cannot start one of their own after it.
    items[:] = [item for item in items if "tests/e2e/" not in str(item.fspath)] + browser_tests
    if os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason="browser tests need Chromium (apt-get install chromium)")
    for item in browser_tests:
        item.add_marker(skip)


class Server:
    def __init__(self, url, log_path):
        self.url = url
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="session")
@starts_processes("daphne and a Celery worker")
def server(django_db_setup, django_db_blocker, redis_url, tmp_path_factory):
    """Run daphne and a Celery worker on the test database until the session ends."""
    workdir = tmp_path_factory.mktemp("e2e-server")
    port = free_port()
    env = server_environment(
        redis_url=redis_url, workdir=workdir, site_url=f"http://127.0.0.1:{port}"
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=settings.BASE_DIR,
        env=env,
        check=True,
    )
    log_path = workdir / "server.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed when the session ends
    commands = [
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "microchip_site.asgi:application"],
        [sys.executable, "-m", "celery", "-A", "microchip_site", "worker", "--pool=threads",
         "--concurrency=2", "--loglevel=WARNING", "--queues", "celery,engine"],
    ]  # fmt: skip
    processes = [
        subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=log)
        for command in commands
    ]
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, processes, log_path)
        yield Server(url, log_path)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()


def _wait_until_up(url, processes, log_path, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in processes):
            raise RuntimeError(f"the e2e server exited:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health/", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the e2e server did not start:\n{log_path.read_text()[-3000:]}")


@pytest.fixture(scope="session")
@starts_processes("Chromium")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def live_db(transactional_db):
    """Data the test writes is committed, so the server process sees it."""


@pytest.fixture
def open_page(browser, server, live_db, request):
    """Return a function that opens a new browser context, logged in as `user` if given."""
    contexts = []

    def open_as(user=None, *, viewport=None, touch=False, color_scheme="light"):
        context = browser.new_context(
            viewport=viewport or {"width": 1280, "height": 900},
            base_url=server.url,
            has_touch=touch,
            is_mobile=touch,
            color_scheme=color_scheme,  # the device's setting, which the "system" theme follows
        )
        context.set_default_timeout(10_000)
        if user is not None:
            context.add_cookies([_session_cookie(user, server.url)])
        contexts.append(context)
        context.on("page", watch_console)  # every page of it: opened here or by a test
        page = context.new_page()
        watch_console(page)
        return page

    yield open_as
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        _keep_pages(request.node.name, contexts)
    said = [
        f"{page.url}: {error}"
        for context in contexts
        for page in context.pages
        for error in unexpected_console_errors(page)
    ]
    for context in contexts:
        context.close()
    _wait_for_the_worker()
    if said and report is not None and report.passed:
        pytest.fail("the browser's console said errors:\n" + "\n".join(said), pytrace=False)


def _wait_for_the_worker(timeout=15):
    """Wait until the server's worker has nothing queued and nothing running: the test's end
    empties the database (a TRUNCATE of every table), and a task still writing (an email of the
    last move, say) would deadlock with it on PostgreSQL and leave the next test its rows."""
    from microchip_site.celery import app

    deadline = time.monotonic() + timeout
    with app.connection_for_read() as connection:
        while time.monotonic() < deadline:
            queued = connection.default_channel.client.llen(app.conf.task_default_queue)
            running = app.control.inspect(timeout=2, limit=1, connection=connection).active()
            if not queued and running and not any(running.values()):
                return
            time.sleep(0.05)


def watch_console(page):
    """Keep what goes wrong in `page`: its script errors and Content Security Policy violations
    in `page.errors` (which tests assert empty where it matters to them), and every error the
    console says in `page.console_errors`, which fail the test at its end (`open_page`) unless
    it expects them (`page.expect_console_error(pattern)`: a test of an outage, say).

    A page or an htmx request that the server refuses (a 4xx with the refusal drawn in it, as a
    stale move or a private table's page gets) is the site working: the browser's "Failed to load
    resource" line for it is not an error of the page. The same line for a script, a stylesheet
    or an image is, and a server error (5xx) always is."""
    if hasattr(page, "console_errors"):
        return
    page.errors = []
    page.console_errors = []
    page.expected_console_errors = []
    refused = set()  # the addresses of the htmx requests answered with a refusal

    def on_response(response):
        request = response.request
        if 400 <= response.status < 500 and request.resource_type in ("xhr", "fetch", "document"):
            refused.add(response.url)

    def on_console(message):
        if "Content Security Policy" in message.text:
            page.errors.append(message.text)
        if message.type != "error":
            return
        where = (message.location or {}).get("url", "")
        if message.text.startswith("Failed to load resource") and where in refused:
            return
        page.console_errors.append(f"{message.text} ({where})" if where else message.text)

    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("response", on_response)
    page.on("console", on_console)
    page.expect_console_error = page.expected_console_errors.append


def unexpected_console_errors(page) -> list[str]:
    return [
        said
        for said in getattr(page, "console_errors", [])
        if not any(re.search(pattern, said) for pattern in page.expected_console_errors)
    ]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.report_call = report  # for open_page, to keep the pages of a failed test
    return report


def _keep_pages(test_name, contexts):
    """Save each page of a failed test, as a picture and as HTML, in var/e2e-failures/: what
    the browser showed is what explains most failures of a browser test."""
    folder = Path(settings.BASE_DIR) / "var" / "e2e-failures"
    folder.mkdir(parents=True, exist_ok=True)
    pages = [page for context in contexts for page in context.pages]
    for number, page in enumerate(pages):
        stem = folder / f"{test_name}-{number}"
        try:
            page.screenshot(path=f"{stem}.png", full_page=True)
            Path(f"{stem}.html").write_text(page.content())
        except Exception as error:  # a page that crashed says so instead
            Path(f"{stem}.txt").write_text(f"{page.url}: {error}")


def _session_cookie(user, url):
    """Log `user` in by a server-side session, as Django's test client does."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return {"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": url}


def screenshot(page, name, *, full_page=True):
    """Save the page as docs/screenshots/<name>.png, whole, or only the window (a phone's)."""
    if not os.environ.get("MICROCHIP_SCREENSHOTS"):
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)


@pytest.fixture
def make_player(live_db):
    """Players the server process can see: the test's writes are committed."""
    return new_player
