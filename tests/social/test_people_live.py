"""Blocking over the game's socket: a message of the table talk never reaches the page of a
player in a block with its author, whoever blocked whom; every other page gets it as before."""

import pytest
from asgiref.sync import sync_to_async

from accounts import blocking
from games.play import chat as talk
from tests.live.conftest import connect, game_path, login, messages, next_of
from tests.live.test_pushes import seated

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _live(live_layer, closes_thread_connections):
    yield


async def test_a_message_never_reaches_a_player_in_a_block_with_its_author_both_ways(
    start_game, players
):
    game, seats, clients = await seated(start_game, 3)
    users = {seat.number: seat.user for seat in seats}
    blocker, blocked, other = users[0], users[1], users[2]
    await sync_to_async(blocking.block)(blocker=blocker, blocked=blocked)
    path = game_path(game, game.version)
    pages = {number: await connect(path, clients[number]) for number in (0, 1, 2)}
    watcher = await connect(path, await sync_to_async(login)(players[4]))
    for socket in (*pages.values(), watcher):
        await messages(socket)

    await sync_to_async(talk.send_message)(game_id=game.pk, user=blocked, text="from blocked")

    assert "from blocked" in (await next_of(pages[2], "chat"))["html"]  # no block: as before
    assert "from blocked" in (await next_of(watcher, "chat"))["html"]
    assert (await next_of(pages[1], "chat"))["mine"] is True  # the author's own page
    assert await pages[0].receive_nothing(timeout=0.5)

    await sync_to_async(talk.send_message)(game_id=game.pk, user=blocker, text="from blocker")

    assert "from blocker" in (await next_of(pages[2], "chat"))["html"]
    assert (await next_of(pages[0], "chat"))["mine"] is True
    assert await pages[1].receive_nothing(timeout=0.5)
    for socket in (*pages.values(), watcher):
        await socket.disconnect()
    assert other.pk not in await sync_to_async(blocking.blocked_ids)(blocker.pk)


async def test_a_deletion_is_not_pushed_to_a_player_in_a_block_either(start_game):
    game, seats, clients = await seated(start_game, 2)
    author, reader = seats[0].user, seats[1].user
    said = await sync_to_async(talk.send_message)(game_id=game.pk, user=author, text="oops")
    await sync_to_async(blocking.block)(blocker=reader, blocked=author)
    socket = await connect(game_path(game, game.version), clients[1])
    await messages(socket)

    await sync_to_async(talk.delete_message)(
        game_id=game.pk, message_id=said.message.pk, user=author
    )

    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


async def test_a_block_lifted_lets_the_next_message_through(start_game):
    game, seats, clients = await seated(start_game, 2)
    author, reader = seats[0].user, seats[1].user
    await sync_to_async(blocking.block)(blocker=reader, blocked=author)
    socket = await connect(game_path(game, game.version), clients[1])
    await messages(socket)

    await sync_to_async(blocking.unblock)(blocker=reader, blocked=author)
    await sync_to_async(talk.send_message)(game_id=game.pk, user=author, text="hello again")

    assert "hello again" in (await next_of(socket, "chat"))["html"]
    await socket.disconnect()
