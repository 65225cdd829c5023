"""A page that closes its socket while a push is on its way: the consumer still leaves its groups
and the presence when the connection ends (found by `manage.py soak`: under daphne the push
raised, the consumer ended there, and its channel stayed in the game's and the player's groups
for a day, each push to them written to it in Redis)."""

import pytest
import redis
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.testing import WebsocketCommunicator
from django.conf import settings

from games import presence
from games.live import pushes as live
from microchip_site.asgi import application
from tests.games.playing import next_move

from .conftest import ORIGIN, apost_move, game_path, login, messages

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
    """How many channels the channel layer has in `group` (channels_redis keeps a sorted set)."""
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    client = redis.Redis.from_url(config["hosts"][0])
    try:
        return client.zcard(f"{config['prefix']}:group:{group}")
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
