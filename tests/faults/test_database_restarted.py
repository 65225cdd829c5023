"""The database goes away under a running daphne, as in production (issue 20).

- Every connection of the server's pool is ended by PostgreSQL ("terminating connection due to
  administrator command", what a restart does to them): the very next requests get live
  connections (the pool checks each before handing it out) and answer 200, never a 500.
- The database cannot be reached at all: a page answers the styled 503 page with Retry-After, and
  a move (an htmx request) a line the game page shows, in seconds rather than after a long hang.
"""

import http.client
import re
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

from benchmarks.loadtest.sessions import sign_in
from infra.services import free_port

from .conftest import Process, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


def get(port: int, path: str, headers: dict | None = None) -> tuple[int, dict, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read().decode(errors="replace")
    finally:
        conn.close()


def status_of(port: int, path: str) -> int | None:
    try:
        return get(port, path)[0]
    except OSError:  # not listening yet
        return None


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"), reason="PostgreSQL only (CI)"
)
def test_the_first_requests_after_the_database_ended_every_connection_succeed(stack, make_player):
    port = free_port()
    server = stack.daphne(port)
    player = sign_in(make_player("ada"))
    cookie = {"Cookie": player.cookie}
    for _ in range(10):  # the server's pool holds connections, all used once
        assert get(port, "/dashboard/", cookie)[0] == 200
        assert get(port, "/health/")[0] == 200

    with connection.cursor() as cursor:  # what a restart of PostgreSQL does to them
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (ended,) = cursor.fetchone()
    assert ended >= 1

    answers = [
        get(port, path, cookie)[0] for _ in range(10) for path in ("/dashboard/", "/health/")
    ]
    assert answers == [200] * 20, server.log()[-3000:]
    assert "Server Error" not in server.log()


def test_a_database_out_of_reach_gets_the_503_page_and_a_move_says_it_was_not_saved(
    fault_redis, tmp_path
):
    from tests.conftest import server_environment

    port, nowhere = free_port(), free_port()  # nothing listens on `nowhere`
    env = server_environment(
        redis_url=fault_redis.url,
        workdir=tmp_path,
        DATABASE_URL=f"postgres://microchip@127.0.0.1:{nowhere}/microchip",
    )
    # The static files as a deployment collects them (the page names them by their hashed names).
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=settings.BASE_DIR, env=env, check=True)  # fmt: skip
    command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
               "microchip_site.asgi:application"]  # fmt: skip
    server = Process("daphne", command, env, tmp_path / "daphne.log")
    try:
        wait_until(lambda: status_of(port, "/health/") == 503, 60, "daphne to answer", step=0.2)
        began = time.monotonic()
        status, headers, page = get(port, "/leaderboard/")
        took = time.monotonic() - began
        assert status == 503, server.log()[-4000:]
        assert headers.get("Retry-After") == "10"
        assert "The site is having trouble" in page
        assert re.search(r'<link rel="stylesheet" href="/static/microchip/site\.\w+\.css">', page)
        assert "Server Error" not in page
        # Not a hang: the pool and the connection give up within seconds (3 s each by default).
        assert took < 20, took

        status, _, line = get(port, "/leaderboard/", {"HX-Request": "true"})
        assert status == 503 and "cannot reach its database" in line
    finally:
        server.kill()
