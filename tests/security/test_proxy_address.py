"""Behind the one-machine layout's nginx (docs/nginx-local.conf) the live sockets count each
client by its own address, not nginx's (issue 34): nginx passes it in X-Real-IP, and `manage.py
up` starts daphne reading it, trusting it only when daphne listens on the loopback, where only a
proxy of the machine's own can reach it. Before, every client was 127.0.0.1, and 250 sockets of
one visitor closed everyone else's with 4429."""

import asyncio
import shutil
import socket
import subprocess
import time
from datetime import timedelta

import pytest
from django.conf import settings

from benchmarks.loadtest.client import WebSocket
from games.play import actions
from infra.launcher import daphne_proxy_arguments
from infra.services import free_port
from tests.daphne import running_daphne

pytestmark = [
    pytest.mark.servers,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not shutil.which("nginx"), reason="nginx is not installed"),
]

TOO_MANY_SOCKETS = 4429


@pytest.fixture
def nginx(tmp_path):
    """docs/nginx-local.conf as it is, on free ports; yield (its port, daphne's port)."""
    nginx_port, http_port, live_port = free_port(), free_port(), free_port()
    config = (settings.BASE_DIR / "docs" / "nginx-local.conf").read_text()
    config = config.replace("127.0.0.1:8080", f"127.0.0.1:{nginx_port}")
    config = config.replace("127.0.0.1:8001", f"127.0.0.1:{http_port}")
    config = config.replace("127.0.0.1:8000", f"127.0.0.1:{live_port}")
    (tmp_path / "nginx").mkdir()
    (tmp_path / "nginx" / "nginx.conf").write_text(config)
    command = [shutil.which("nginx"), "-p", str(tmp_path / "nginx"), "-c", "nginx.conf",
               "-g", "daemon off;"]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    try:
        yield nginx_port, live_port
    finally:
        process.terminate()
        process.wait(10)


async def socket_from(source: str, port: int, game_id: int) -> int | None:
    """Open a game's socket through nginx from the address `source` (any 127.x.y.z is this
    machine); return the close code it is sent at once, or None if it stays open."""
    headers = [("Origin", f"http://127.0.0.1:{port}")]
    page = await WebSocket.connect(
        "127.0.0.1", port, f"/ws/games/{game_id}/", headers, source=source
    )
    opened.append(page)
    try:
        while True:
            if await asyncio.wait_for(page.receive(), 1.5) is None:
                return page.close_code
    except TimeoutError:
        return None


opened: list[WebSocket] = []


def wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on {port}"
            time.sleep(0.1)


def test_each_client_behind_nginx_is_counted_by_its_own_address(
    nginx, redis_url, tmp_path, players
):
    nginx_port, live_port = nginx
    game = actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(1))
    actions.join_game(game_id=game.pk, user=players[1])  # a public game: anyone may watch
    arguments = daphne_proxy_arguments("127.0.0.1")  # as `manage.py up` starts it
    with running_daphne(
        redis_url, tmp_path, port=live_port, arguments=arguments, LIVE_SOCKETS_PER_ADDRESS="2"
    ):
        wait_for_port(nginx_port)

        async def visitors():
            try:
                one = [await socket_from("127.0.0.2", nginx_port, game.pk) for _ in range(3)]
                other = await socket_from("127.0.0.3", nginx_port, game.pk)
                return one, other
            finally:
                for page in opened:
                    page.close(1001)
                opened.clear()

        one, other = asyncio.run(visitors())

    # One visitor's third socket is one too many from its address; another visitor's first,
    # through the same nginx, is not.
    assert one == [None, None, TOO_MANY_SOCKETS]
    assert other is None


def test_up_trusts_the_proxys_address_only_on_the_loopback():
    assert daphne_proxy_arguments("127.0.0.1") == [
        "--proxy-headers",
        "--proxy-headers-host",
        "X-Real-IP",
    ]
    assert daphne_proxy_arguments("::1") == daphne_proxy_arguments("localhost")
    assert daphne_proxy_arguments("127.0.0.1") == daphne_proxy_arguments("[::1]")
    # Listening for the world, a client could write the header itself: the peer counts.
    assert daphne_proxy_arguments("0.0.0.0") == []
    assert daphne_proxy_arguments("192.0.2.7") == []
    assert daphne_proxy_arguments("::") == []
