"""A queued draft is its player's alone: a change to it reaches their own other pages and no one
else's, and a move's pushes draw each player's own queue (and none for a spectator)."""

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tests.games.playing import current_state

from .conftest import apost_move, connect, game_path, login, messages, next_of
from .test_pushes import page_of, seated, section

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def post_queue(client, game, tiles, *, page):
    return client.post(
        reverse("games:queue", args=[game.pk]),
        {"tiles": ",".join(map(str, tiles)), "confirm": "1", "version": game.version},
        HTTP_HX_REQUEST="true",
        HTTP_X_PAGE_ID=page,
    )


async def test_a_changed_queue_reaches_its_player_s_other_pages_and_nobody_else(
    start_game, players
):
    game, _, clients = await seated(start_game, 3)
    column = (await sync_to_async(current_state)(game)).columns[11]
    path = game_path(game, game.version)
    here = await connect(f"{path}&page=queuingtab1", clients[1])
    there = await connect(f"{path}&page=othertab22", clients[1])
    others = [
        await connect(path, clients[0]),
        await connect(path, clients[2]),
        await connect(path, await sync_to_async(login)(players[4])),  # a spectator
        await connect(path),  # signed out
    ]
    for socket in [here, there, *others]:
        await messages(socket)

    response = await sync_to_async(post_queue)(
        clients[1], game, [column[2], column[0]], page="queuingtab1"
    )

    assert response.status_code == 200
    pushed = await next_of(there, "queue")
    assert 'id="draft-ahead"' in pushed["html"]
    assert f'id="ahead-remove-{column[2]}"' in pushed["html"]
    assert section(pushed["html"], "draft-ahead") == section(
        await page_of(clients[1], game), "draft-ahead"
    )
    assert await here.receive_nothing(timeout=0.5)  # its answer drew it
    for socket in others:
        assert await socket.receive_nothing(timeout=0.3)
    for socket in [here, there, *others]:
        await socket.disconnect()


async def test_a_move_s_pushes_draw_each_player_s_own_queue_and_none_for_a_spectator(
    start_game, players
):
    game, _, clients = await seated(start_game, 3)
    column = (await sync_to_async(current_state)(game)).columns[11]
    await sync_to_async(post_queue)(clients[1], game, [column[3], column[4]], page="queuingtab1")
    path = game_path(game, game.version)
    sockets = {n: await connect(path, clients[n]) for n in (1, 2)}
    watcher = await connect(path, await sync_to_async(login)(players[4]))
    for socket in [*sockets.values(), watcher]:
        await messages(socket)

    await apost_move(clients[0], game, {"type": "draft", "tile_id": column[0]}, game.version)

    pushes = {n: await next_of(socket, "push") for n, socket in sockets.items()}
    for number, push in pushes.items():
        assert section(push["html"], "draft-ahead") == section(
            await page_of(clients[number], game), "draft-ahead"
        )
    assert f'data-tile="{column[3]}"' in section(pushes[1]["html"], "draft-ahead")
    seat_2_panel = section(pushes[2]["html"], "draft-ahead")
    assert "ahead-item" not in seat_2_panel and "Nothing queued" in seat_2_panel
    spectator = await next_of(watcher, "push")
    assert 'id="draft-ahead"' not in spectator["html"]
    for socket in [*sockets.values(), watcher]:
        await socket.disconnect()
