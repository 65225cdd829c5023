"""The table talk over the game's socket: a message reaches every open page that may read it,
drawn for its viewer, and no other; the browser cannot write through the socket."""

import json

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from games.models import ChatMessage
from games.play import chat as talk
from tests.live.conftest import connect, game_path, login, messages, next_of
from tests.live.test_pushes import seated

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _live(live_layer, closes_thread_connections):
    yield


def say(client, game, text):
    return client.post(
        reverse("games:chat", args=[game.pk]), {"text": text}, HTTP_HX_REQUEST="true"
    )


async def test_a_message_reaches_the_other_player_and_spectators_drawn_for_each(
    start_game, players
):
    game, seats, clients = await seated(start_game, 2)
    path = game_path(game, game.version)
    writer, reader = clients[0], clients[1]
    mine = await connect(path, writer)
    theirs = await connect(path, reader)
    watcher = await connect(path, await sync_to_async(login)(players[4]))
    anonymous = await connect(path)
    for socket in (mine, theirs, watcher, anonymous):
        await messages(socket)

    response = await sync_to_async(say)(writer, game, "<b>hello</b> table")
    assert response.status_code == 200

    message = await sync_to_async(ChatMessage.objects.get)()
    pushed = await next_of(theirs, "chat")
    assert pushed["id"] == message.pk and pushed["mine"] is False
    assert "&lt;b&gt;hello&lt;/b&gt; table" in pushed["html"]
    assert seats[0].user.username in pushed["html"]
    assert "chat-delete" not in pushed["html"]  # not theirs to delete
    own = await next_of(mine, "chat")  # the writer's other tabs too; chat.js places it once
    assert own["mine"] is True and "chat-delete" in own["html"]
    for socket in (watcher, anonymous):
        assert (await next_of(socket, "chat"))["id"] == message.pk
    for socket in (mine, theirs, watcher, anonymous):
        await socket.disconnect()


async def test_a_deletion_reaches_every_page_and_the_message_goes(start_game):
    game, seats, clients = await seated(start_game, 2)
    said = await sync_to_async(talk.send_message)(
        game_id=game.pk, user=seats[0].user, text="never mind"
    )
    reader = await connect(game_path(game, game.version), clients[1])
    await messages(reader)

    await sync_to_async(talk.delete_message)(
        game_id=game.pk, message_id=said.message.pk, user=seats[0].user
    )

    pushed = await next_of(reader, "chat")
    assert pushed["id"] == said.message.pk
    assert "data-deleted" in pushed["html"] and "never mind" not in pushed["html"]
    await reader.disconnect()


async def test_a_table_that_keeps_its_talk_sends_none_to_spectators(start_game, players):
    game, seats, clients = await seated(start_game, 2)
    await sync_to_async(type(game).objects.filter(pk=game.pk).update)(spectators_read_chat=False)
    path = game_path(game, game.version)
    reader = await connect(path, clients[1])
    watcher = await connect(path, await sync_to_async(login)(players[4]))
    anonymous = await connect(path)
    for socket in (reader, watcher, anonymous):
        await messages(socket)

    await sync_to_async(talk.send_message)(game_id=game.pk, user=seats[0].user, text="psst")

    assert (await next_of(reader, "chat"))["html"].count("psst") == 1
    assert await watcher.receive_nothing(timeout=0.5)
    assert await anonymous.receive_nothing(timeout=0.2)
    for socket in (reader, watcher, anonymous):
        await socket.disconnect()


async def test_another_game_s_talk_never_reaches_a_page_and_the_socket_takes_no_message(
    start_game, players
):
    game, _, clients = await seated(start_game, 2)
    other = await sync_to_async(start_game)(2)
    other_player = await sync_to_async(lambda: other.seats.first().user)()
    socket = await connect(game_path(game, game.version), clients[0])
    await messages(socket)

    await sync_to_async(talk.send_message)(game_id=other.pk, user=other_player, text="elsewhere")
    # A forged message naming the other game: the socket is not a way to write.
    await socket.send_to(text_data=json.dumps({"type": "chat", "game": other.pk, "text": "forged"}))

    assert await socket.receive_nothing(timeout=0.5)
    texts = await sync_to_async(
        lambda: sorted(ChatMessage.objects.values_list("text", flat=True))
    )()
    assert texts == ["elsewhere"]
    await socket.disconnect()
