"""A rematch's offer shows live on the ended game's open pages, and so does its calling off."""

import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from games.play import actions, rematches
from tests.live.conftest import connect, game_path, login, messages, next_of
from tests.live.test_pushes import seated

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _live(live_layer, closes_thread_connections):
    yield


async def test_the_offer_and_its_calling_off_reach_the_ended_game_s_pages(start_game, players):
    game, seats, clients = await seated(start_game, 2)
    await sync_to_async(Game.objects.filter(pk=game.pk).update)(status=Game.Status.ENDED)
    path = game_path(game, game.version)
    other = await connect(path, clients[1])
    watcher = await connect(path, await sync_to_async(login)(players[4]))
    for socket in (other, watcher):
        await messages(socket)

    rematch = await sync_to_async(rematches.offer_rematch)(game_id=game.pk, user=seats[0].user)

    offered = await next_of(other, "rematch")
    assert 'id="rematch"' in offered["html"]
    assert f"<strong>{seats[0].user.username}</strong> asks for a rematch" in offered["html"]
    # A card the invited player answers where it is: Accept (a seat) or Decline.
    assert f'id="rematch-accept" hx-post="/games/{rematch.pk}/join/"' in offered["html"]
    assert f'hx-post="/games/{rematch.pk}/decline/">Decline</button>' in offered["html"]
    assert "watch its table" in (await next_of(watcher, "rematch"))["html"]

    await sync_to_async(actions.decline_invitation)(game_id=rematch.pk, user=seats[1].user)

    called_off = await next_of(other, "rematch")
    assert "The rematch was called off." in called_off["html"]
    assert ">Rematch</button>" in called_off["html"]
    for socket in (other, watcher):
        await socket.disconnect()
