"""A page that closes its socket while a push is on its way, and a consumer that daphne kills
because it was still busy 10 s after its connection closed: either way its channel leaves the
game's and the player's groups (found by the soak test: the consumer ended without its
disconnect, and its channel stayed in the groups for a day, every push to them kept for it)."""

import asyncio

import pytest
import redis
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.testing import WebsocketCommunicator
from django.conf import settings

from games import presence
from games.live import pushes as live
from games.live.consumers import LiveConsumer
from microchip_site.asgi import application
from tests.games.playing import next_move

from .conftest import ORIGIN, apost_move, connect, game_path, login, messages

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


class ClosedByThePage:
    """The ASGI application as daphne runs it between a browser's close frame and the end of the
    connection: from `closing` on, every send raises what daphne raises then."""

    def __init__(self, app):
        self.app = app
        self.closing = False
        self.refused = 0

    async def __call__(self, scope, receive, send):
        async def sending(message):
            if self.closing and message["type"] == "websocket.send":
                self.refused += 1
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        return await self.app(scope, receive, sending)


def members(group: str) -> int:
    """How many processes listen to `group` (channels_redis's publish/subscribe layer subscribes
    a process to a group's Redis channel while one of its consumers is in the group)."""
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    client = redis.Redis.from_url(config["hosts"][0])
    try:
        name = f"{config['prefix']}__group__{group}"
        return dict(client.pubsub_numsub(name))[name.encode()]
    finally:
        client.close()


async def test_a_push_to_a_page_that_closed_its_socket_leaves_no_member_behind(start_game):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    watcher = seats[1].user
    app = ClosedByThePage(application)
    cookie = (
        f"{settings.SESSION_COOKIE_NAME}={clients[1].cookies[settings.SESSION_COOKIE_NAME].value}"
    )
    socket = WebsocketCommunicator(
        app,
        game_path(game, game.version),
        headers=[(b"origin", ORIGIN), (b"cookie", cookie.encode())],
    )
    assert (await socket.connect(timeout=5))[0]
    await messages(socket)
    game_group, user_group = live.game_group(game.pk), live.user_group(watcher.pk)
    assert await sync_to_async(members)(game_group) == 1
    assert await sync_to_async(members)(user_group) == 1

    app.closing = True  # the page closed; the connection is not gone yet
    mover, action = await sync_to_async(next_move)(game)
    assert (
        await apost_move(clients[mover], game, action.to_json(), game.version)
    ).status_code == 200
    while not app.refused:  # the push came, and could not be sent
        assert await socket.receive_nothing(timeout=0.05)
    await socket.disconnect(code=1001)  # the connection ends (raises what the consumer raised)

    assert await sync_to_async(members)(game_group) == 0
    assert await sync_to_async(members)(user_group) == 0
    assert await sync_to_async(presence.watching)(game.pk, [watcher.pk]) == set()


async def test_a_consumer_killed_while_busy_still_leaves_its_groups(start_game, monkeypatch):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    socket = await connect(game_path(game, game.version), clients[1])
    await messages(socket)
    game_group, user_group = live.game_group(game.pk), live.user_group(seats[1].user.pk)
    assert await sync_to_async(members)(game_group) == 1

    busy = asyncio.Event()

    async def drawing_for_ever(self, event):  # a push waiting on a busy process
        busy.set()
        await asyncio.sleep(3600)

    monkeypatch.setattr(LiveConsumer, "game_changed", drawing_for_ever)
    mover, action = await sync_to_async(next_move)(game)
    assert (
        await apost_move(clients[mover], game, action.to_json(), game.version)
    ).status_code == 200
    await asyncio.wait_for(busy.wait(), 5)
    socket.future.cancel()  # what daphne does to an application that does not end in time
    with pytest.raises(asyncio.CancelledError):
        await socket.future

    assert await sync_to_async(members)(game_group) == 0
    assert await sync_to_async(members)(user_group) == 0
