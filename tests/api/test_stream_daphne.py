"""The stream served by a real daphne process, as production serves it: the lines reach an HTTP
client as they happen, and a client that hangs up gives its stream's place back."""

import json
import subprocess
import sys
import time
import urllib.request
from datetime import timedelta

import httpx
import pytest
from django.conf import settings

from accounts import tokens
from games import rules
from games.play import actions
from infra.services import free_port
from tests.conftest import server_environment
from tests.games.playing import current_state
from tests.tiers import starts_processes

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


@pytest.fixture
@starts_processes("daphne")
def daphne(redis_url, tmp_path):
    """daphne on the test database and the run's Redis (the channel layer and the cache this
    process uses too), until the test ends."""
    port = free_port()
    (tmp_path / "static").mkdir()
    env = server_environment(redis_url=redis_url, workdir=tmp_path)
    log_path = tmp_path / "daphne.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "microchip_site.asgi:application"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=log,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log_path.read_text()[-3000:]
                try:
                    with urllib.request.urlopen(f"{url}/health/", timeout=2):
                        break
                except OSError:
                    assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                    time.sleep(0.2)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def test_daphne_streams_a_move_as_it_happens_and_frees_the_place_of_a_closed_stream(
    daphne, players
):
    game = actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=players[1])
    state = current_state(game)
    mover = game.seats.select_related("user").get(number=state.current).user
    waiting = game.seats.select_related("user").exclude(user=mover).get().user
    headers = {"Authorization": f"Bearer {tokens.create_token(waiting, name='t', scope='read')[1]}"}

    with (
        httpx.Client(base_url=daphne, headers=headers, timeout=10) as client,
        client.stream("GET", "/api/v1/stream") as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/x-ndjson"
        lines = response.iter_lines()
        first = json.loads(next(lines))
        assert (first["type"], first["game"], first["your_move"]) == ("game", game.pk, False)

        for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
            actions.play(game_id=game.pk, user=mover, action=action, seen_version=None)

        seen = []
        while not seen or seen[-1]["type"] != "your_move":
            line = next(lines)
            if line:
                seen.append(json.loads(line))
        game.refresh_from_db()
        events = [line["version"] for line in seen if line["type"] == "event"]
        assert events == list(range(first["version"] + 1, game.version + 1))
        assert seen[-1]["version"] == game.version

    # The client hung up: daphne's stream ended and gave its place back, so four more open.
    opened = []
    try:
        deadline = time.monotonic() + 5
        while len(opened) < 4:
            client = httpx.Client(base_url=daphne, headers=headers, timeout=10)
            response = client.send(client.build_request("GET", "/api/v1/stream"), stream=True)
            if response.status_code == 429:
                response.close()
                client.close()
                assert time.monotonic() < deadline, "the closed stream kept its place"
                time.sleep(0.2)
                continue
            assert response.status_code == 200
            opened.append((client, response))
    finally:
        for client, response in opened:
            response.close()
            client.close()
