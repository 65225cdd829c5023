"""How many live sockets a player and an address may hold and open (games/live/sockets.py):
the player's oldest page makes way for a new one, an address past its limit and connects past
their rate are told to try later, and a flood's pause survives a reconnect."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async

from games.live import socket_keeper, sockets

from .conftest import closed_with, connect, game_path, login, messages

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

REPLACED, TOO_MANY_SOCKETS, FLOODING = 4409, 4429, 4408


async def still_open(socket, quiet=0.5) -> bool:
    """Whether the socket stays open (what it was sent meanwhile is read and dropped)."""
    while not await socket.receive_nothing(timeout=quiet):
        if (await socket.receive_output())["type"] == "websocket.close":
            return False
    return True


@pytest.fixture
def limits(settings):
    settings.LIVE_SOCKETS_PER_PLAYER = 3
    settings.LIVE_SOCKETS_PER_ADDRESS = 5
    settings.LIVE_CONNECTS_PER_PLAYER = 6
    settings.LIVE_CONNECTS_PER_ADDRESS = 100
    return settings


async def test_a_players_newest_page_closes_their_oldest(players, limits):
    ada = await sync_to_async(login)(players[0])
    pages = [await connect("/ws/live/", ada, address="10.0.0.1") for _ in range(3)]
    assert all(page.connected for page in pages)
    for page in pages:
        await messages(page)

    newest = await connect("/ws/live/", ada, address="10.0.0.2")  # another device

    assert newest.connected
    assert await closed_with(pages[0]) == REPLACED
    assert await still_open(pages[1]) and await still_open(pages[2])
    # A page that closed leaves room: no other is replaced for the next one.
    await pages[1].disconnect()
    another = await connect("/ws/live/", ada, address="10.0.0.1")
    assert another.connected
    assert await still_open(pages[2]) and await still_open(newest)
    for page in (pages[2], newest, another):
        await page.disconnect()


async def test_open_pages_stay_counted_without_their_heartbeats(players, limits, monkeypatch):
    """The process that holds a socket keeps it counted (games/live/socket_keeper.py), not the
    page's heartbeat: three pages that sent none for longer than a socket's entry lasts still
    count, so a fourth still closes the oldest."""
    monkeypatch.setattr(sockets, "TTL", 1)
    monkeypatch.setattr(socket_keeper, "EVERY", 0.2)
    ada = await sync_to_async(login)(players[0])
    pages = [await connect("/ws/live/", ada, address="10.0.0.1") for _ in range(3)]
    for page in pages:
        await messages(page)

    await asyncio.sleep(2.5)  # past the entries' first expiry, and the next
    fourth = await connect("/ws/live/", ada, address="10.0.0.1")

    assert fourth.connected
    assert await closed_with(pages[0]) == REPLACED
    for page in (*pages[1:], fourth):
        await page.disconnect()


async def test_an_address_past_its_limit_is_told_to_try_later_without_closing_others(
    players, limits
):
    held = []
    for player in players[:5]:  # five players behind one address
        page = await connect("/ws/live/", await sync_to_async(login)(player), address="10.0.0.9")
        assert page.connected
        held.append(page)
    sixth = await connect("/ws/live/", await sync_to_async(login)(players[0]), address="10.0.0.9")
    assert await closed_with(sixth) == TOO_MANY_SOCKETS
    assert all([await still_open(page) for page in held])
    elsewhere = await connect(
        "/ws/live/", await sync_to_async(login)(players[1]), address="10.9.9.9"
    )
    assert elsewhere.connected
    for page in [*held, elsewhere]:
        await page.disconnect()


async def test_connecting_too_fast_is_told_to_try_later(players, limits):
    ada = await sync_to_async(login)(players[0])
    for _ in range(6):  # each closed at once: only the rate counts
        page = await connect("/ws/live/", ada, address="10.0.0.3")
        assert page.connected
        await page.disconnect()
    seventh = await connect("/ws/live/", ada, address="10.0.0.4")
    assert await closed_with(seventh) == TOO_MANY_SOCKETS


async def test_a_flood_is_closed_and_the_pause_survives_a_reconnect(players, limits):
    ada = await sync_to_async(login)(players[0])
    page = await connect("/ws/live/", ada, address="10.0.0.5")
    await messages(page)
    for _ in range(40):
        await page.send_json_to({"type": "ping", "version": 1, "visible": True})
    assert await closed_with(page) == FLOODING

    again = await connect("/ws/live/", ada, address="10.0.0.6")  # another address: same player
    assert await closed_with(again) == FLOODING
    # Another player at the flooder's address is not made to wait (a school, an office).
    same_place = await connect(
        "/ws/live/", await sync_to_async(login)(players[1]), address="10.0.0.5"
    )
    assert same_place.connected and await still_open(same_place)
    await same_place.disconnect()


async def test_a_flood_not_signed_in_pauses_the_address_but_not_its_players(
    players, start_game, limits
):
    game = await sync_to_async(start_game)(2)  # a public game: anyone may watch it
    visitor = await connect(game_path(game), None, address="10.0.0.8")
    await messages(visitor)
    for _ in range(40):
        await visitor.send_json_to({"type": "ping", "visible": True})
    assert await closed_with(visitor) == FLOODING

    back = await connect(game_path(game), None, address="10.0.0.8")  # reconnecting, still nobody
    assert await closed_with(back) == FLOODING
    player = await connect("/ws/live/", await sync_to_async(login)(players[2]), address="10.0.0.8")
    assert player.connected and await still_open(player)
    elsewhere = await connect(game_path(game), None, address="10.0.0.9")
    assert elsewhere.connected and await still_open(elsewhere)
    for page in (player, elsewhere):
        await page.disconnect()


# --- what comes while the socket is busy (issue 34) ----------------------------------------------


async def test_stale_syncs_are_counted_as_they_arrive_and_a_flood_of_them_is_closed(
    start_game, players, limits
):
    """A sync that claims an old version asks for a whole redraw, which the socket makes at most
    once in a while: a page that sends many must still run out of its allowance at once, not
    be read one a second for ever."""
    game = await sync_to_async(start_game)(2)
    page = await connect(game_path(game, game.version), await sync_to_async(login)(players[3]))
    await messages(page)

    for _ in range(30):
        await page.send_json_to({"type": "sync", "version": 0})

    assert await closed_with(page) == FLOODING


async def test_a_socket_with_too_many_messages_waiting_is_closed(
    start_game, players, limits, monkeypatch
):
    """Messages that wait while the socket is busy (here, a database that takes a second an
    answer) are bounded: a page that sends within its allowance, but faster than it is
    answered, is closed once MAX_BACKLOG of them wait, rather than pile them up in memory."""
    from games import state_store
    from games.live import consumers

    game = await sync_to_async(start_game)(2)
    page = await connect(game_path(game, game.version), await sync_to_async(login)(players[3]))
    await messages(page)
    current_version = state_store.current_version

    def slow(game_id):
        time.sleep(1.0)
        return current_version(game_id)

    monkeypatch.setattr(state_store, "current_version", slow)
    up_to_date = {"type": "sync", "version": game.version}
    for _ in range(consumers.BURST):  # the whole allowance at once
        await page.send_json_to(up_to_date)
    closed = None
    for _ in range(10):  # then as fast as the allowance refills
        await asyncio.sleep(consumers.REFILL * 1.1)
        await page.send_json_to(up_to_date)
        while closed is None and not await page.receive_nothing(timeout=0.01):
            output = await page.receive_output()  # a sync answered, or the close
            if output["type"] == "websocket.close":
                closed = output.get("code")
        if closed is not None:
            break

    assert closed == FLOODING
