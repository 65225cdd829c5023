"""The stream served by a real daphne process, as production serves it: the lines reach an HTTP
client as they happen, and a client that hangs up gives its stream's place back."""

import json
import time
from datetime import timedelta

import httpx
import pytest

from accounts import tokens
from games import rules
from games.play import actions
from tests.daphne import running_daphne
from tests.games.playing import current_state
from tests.tiers import starts_processes

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


@pytest.fixture
@starts_processes("daphne")
def daphne(redis_url, tmp_path):
    """daphne on the test database and the run's Redis (the channel layer and the cache this
    process uses too), until the test ends."""
    with running_daphne(redis_url, tmp_path) as server:
        yield server.url


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


def test_the_stream_answers_at_once_even_with_nothing_to_say(daphne, players):
    """A player with no game and no invitation gets the 200 and its headers at once, not with
    the first keep-alive line 20 s later, past most clients' time-outs (issue 34)."""
    secret = tokens.create_token(players[4], name="t", scope="read")[1]
    headers = {"Authorization": f"Bearer {secret}"}
    began = time.monotonic()
    with (
        httpx.Client(base_url=daphne, headers=headers, timeout=5) as client,
        client.stream("GET", "/api/v1/stream") as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/x-ndjson"
        assert time.monotonic() - began < 3
