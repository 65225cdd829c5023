"""Without Redis the game is still played over HTTP; the live layer comes back with Redis."""

import time

import pytest
from asgiref.sync import sync_to_async

from games.live import pushes as live
from games.models import Game
from infra.services import free_port
from tests.games.playing import next_move

from .conftest import apost_move, closed_with, connect, game_path, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def channel_layer_at(url):
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [url], "prefix": "test-live-down"},
        }
    }


async def test_moves_go_on_without_redis_and_pages_catch_up_when_it_is_back(
    start_game, settings, redis_url, caplog, monkeypatch
):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    shown = game.version
    monkeypatch.setattr(live, "PAUSE_AFTER_FAILURE", 0.5)
    working = settings.CHANNEL_LAYERS
    settings.CHANNEL_LAYERS = channel_layer_at(f"redis://127.0.0.1:{free_port()}/0")

    # A page cannot join its groups: it is told to come back later (4503: it retries), and the
    # consumer ends cleanly (an outage is logged as a warning, not an application's traceback).
    refused = await connect(game_path(game, shown), clients[1])
    assert await closed_with(refused) == 4503
    await refused.wait(timeout=2)  # raises what the consumer raised, if anything
    assert "live: lost the channel layer" in caplog.text

    started = time.monotonic()
    for _ in range(2):
        seat, action = await sync_to_async(next_move)(game)
        response = await apost_move(clients[seat], game, action.to_json(), game.version)
        assert response.status_code == 200
    assert time.monotonic() - started < live.SEND_TIMEOUT + 1.5
    assert "live: cannot send" in caplog.text
    assert await sync_to_async(Game.objects.values_list("version", flat=True).get)(pk=game.pk) == (
        shown + 2
    )

    settings.CHANNEL_LAYERS = working  # Redis is back
    time.sleep(0.6)
    socket = await connect(game_path(game, shown), clients[1])
    assert (await next_of(socket, "resync"))["version"] == shown + 2
    await messages(socket)
    seat, action = await sync_to_async(next_move)(game)
    await apost_move(clients[seat], game, action.to_json(), game.version)
    assert (await next_of(socket, "push"))["version"] == shown + 3
    await socket.disconnect()


async def test_a_page_that_missed_pushes_while_sending_was_paused_is_resynced_when_it_ends(
    start_game, live_layer
):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    shown = game.version
    socket = await connect(game_path(game, shown), clients[0])
    await messages(socket)

    live._paused_until = time.monotonic() + 60  # a send failed a moment ago
    for _ in range(2):
        seat, action = await sync_to_async(next_move)(game)
        response = await apost_move(clients[seat], game, action.to_json(), game.version)
        assert response.status_code == 200
    assert await socket.receive_nothing(timeout=0.3)

    live._paused_until = 0.0
    live._send_held()  # what the sender's timer does when the pause ends
    resync = await next_of(socket, "resync")  # the page was two versions behind
    assert resync["version"] == shown + 2
    assert f'data-version="{shown + 2}"' in resync["html"]
    await socket.disconnect()
