"""A page that comes back (reconnects, wakes up, noticed a gap) is brought up to date."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError

from tests.games.playing import next_move

from .conftest import apost_move, connect, game_path, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def two_moves_while_away(game):
    """Play a draft and its confirmation over HTTP; return the version before them."""
    shown = game.version
    for _ in range(2):
        seat, action = await sync_to_async(next_move)(game)  # refreshes `game`
        user = await sync_to_async(lambda seat=seat: game.seats.get(number=seat).user)()
        response = await apost_move(
            await sync_to_async(login)(user), game, action.to_json(), game.version
        )
        assert response.status_code == 200
    return shown


async def test_a_page_that_reconnects_with_an_old_version_gets_the_whole_game(start_game, players):
    game = await sync_to_async(start_game)(2)
    watcher = await sync_to_async(login)(players[4])
    shown = await two_moves_while_away(game)

    socket = await connect(game_path(game, shown), watcher)

    resync = await next_of(socket, "resync")
    assert resync["version"] == shown + 2
    assert 'id="game"' in resync["html"] and f'data-version="{shown + 2}"' in resync["html"]
    await socket.disconnect()


async def test_a_page_that_is_up_to_date_is_told_so(start_game):
    game = await sync_to_async(start_game)(2)

    socket = await connect(game_path(game, game.version))

    received = await messages(socket)
    assert [message["type"] for message in received if message["type"] != "presence"] == ["synced"]
    assert received[0]["version"] == game.version
    await socket.disconnect()


async def test_a_page_that_wakes_up_behind_asks_and_gets_the_whole_game(start_game):
    game = await sync_to_async(start_game)(2)
    socket = await connect(game_path(game, game.version))
    await messages(socket)
    shown = await two_moves_while_away(game)
    await messages(socket)  # the two pushes, which this sleeping page never applied

    await socket.send_json_to({"type": "sync", "version": shown})

    resync = await next_of(socket, "resync")
    assert resync["version"] == shown + 2
    await socket.send_json_to({"type": "sync", "version": shown + 2})
    assert (await next_of(socket, "synced"))["version"] == shown + 2
    await socket.disconnect()


async def test_a_push_that_could_not_be_drawn_is_mended_by_the_next_heartbeat(
    start_game, players, monkeypatch
):
    """The database was out of reach when the push came (the socket could not draw it), and no
    later push comes: the page's heartbeat says the version it shows, and the socket, which heard
    of a newer one, resyncs it (issue 20: a page stayed behind for minutes)."""
    from games.drawing import updates

    game = await sync_to_async(start_game)(2)
    watcher = await sync_to_async(login)(players[4])
    socket = await connect(game_path(game, game.version), watcher)
    await messages(socket)
    drawers = {name: getattr(updates, name) for name in ("draw_change", "draw_game")}

    def unreachable(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    for name in drawers:
        monkeypatch.setattr(updates, name, unreachable)
    shown = await two_moves_while_away(game)
    assert [m for m in await messages(socket) if m["type"] in ("push", "resync")] == []
    for name, drawer in drawers.items():  # the database is back
        monkeypatch.setattr(updates, name, drawer)

    await socket.send_json_to({"type": "ping", "version": shown, "visible": True})

    resync = await next_of(socket, "resync")
    assert resync["version"] == shown + 2
    await socket.send_json_to({"type": "ping", "version": shown + 2, "visible": True})
    assert [m for m in await messages(socket) if m["type"] in ("push", "resync")] == []
    await socket.disconnect()


async def test_a_page_that_keeps_asking_gets_one_redraw_at_once_and_one_when_the_interval_ends(
    start_game, players
):
    """A whole redraw is the socket's dearest answer: asked for again and again (a page stuck in
    a loop, or a flood), it comes at once, then once when RESYNC_INTERVAL has passed, for every
    ask meanwhile (issue 34)."""
    from games.live.consumers import RESYNC_INTERVAL

    game = await sync_to_async(start_game)(2)
    socket = await connect(game_path(game, game.version), await sync_to_async(login)(players[4]))
    await messages(socket)

    began = time.monotonic()
    for _ in range(6):
        await socket.send_json_to({"type": "sync", "version": 0})
        await asyncio.sleep(0.1)
    first = await next_of(socket, "resync")
    assert time.monotonic() - began < RESYNC_INTERVAL / 2
    second = await next_of(socket, "resync", timeout=RESYNC_INTERVAL + 2)
    assert time.monotonic() - began >= RESYNC_INTERVAL * 0.9
    assert first["version"] == second["version"] == game.version
    assert [m for m in await messages(socket, 1.0) if m["type"] == "resync"] == []
    await socket.disconnect()


async def test_a_heartbeat_that_crosses_a_push_on_its_way_asks_for_no_redraw(start_game, players):
    """The page's heartbeat left before the push of the next version reached it: it shows one
    version less than the socket sent, which is no reason to redraw the whole game (issue 36)."""
    game = await sync_to_async(start_game)(2)
    socket = await connect(game_path(game, game.version), await sync_to_async(login)(players[4]))
    await messages(socket)
    shown = game.version
    seat, action = await sync_to_async(next_move)(game)
    user = await sync_to_async(lambda: game.seats.get(number=seat).user)()
    await apost_move(await sync_to_async(login)(user), game, action.to_json(), shown)
    assert (await next_of(socket, "push"))["version"] == shown + 1

    await socket.send_json_to({"type": "ping", "version": shown, "visible": True})

    assert [m for m in await messages(socket, 0.5) if m["type"] in ("push", "resync")] == []
    await socket.disconnect()


async def pushes_of_two_moves(game, monkeypatch) -> tuple[int, list[dict]]:
    """Two moves made over HTTP, their ``game.changed`` events kept back from the pages; the
    version before them and the events."""
    from games.live import pushes as live

    sent = []
    monkeypatch.setattr(live, "send", sent.extend)
    shown = await two_moves_while_away(game)
    monkeypatch.undo()
    events = [event for _, event in sent if event["type"] == "game.changed"]
    assert [event["version"] for event in events] == [shown + 1, shown + 2]
    return shown, events


async def test_a_push_that_comes_before_the_one_it_follows_waits_for_it(
    start_game, players, monkeypatch
):
    """Two processes made two versions one after the other, and the later one's push came first
    (each draws its players' pushes before sending them): the socket waits for the one before,
    then sends both, in order, and redraws nothing whole."""
    from channels.layers import get_channel_layer

    from games.live.changes import game_group

    game = await sync_to_async(start_game)(2)
    socket = await connect(game_path(game, game.version), await sync_to_async(login)(players[4]))
    await messages(socket)
    shown, events = await pushes_of_two_moves(game, monkeypatch)

    for event in reversed(events):
        await get_channel_layer().group_send(game_group(game.pk), event)

    received = [m for m in await messages(socket, 0.5) if m["type"] in ("push", "resync")]
    assert [(m["type"], m["version"]) for m in received] == [
        ("push", shown + 1),
        ("push", shown + 2),
    ]
    await socket.disconnect()


async def test_a_push_whose_version_before_never_comes_redraws_the_page_after_a_moment(
    start_game, players, monkeypatch
):
    from channels.layers import get_channel_layer

    from games.live.changes import game_group
    from games.live.consumers import EARLY_WAIT

    game = await sync_to_async(start_game)(2)
    socket = await connect(game_path(game, game.version), await sync_to_async(login)(players[4]))
    await messages(socket)
    shown, events = await pushes_of_two_moves(game, monkeypatch)

    await get_channel_layer().group_send(game_group(game.pk), events[1])  # the first was lost
    assert [m for m in await messages(socket, EARLY_WAIT / 2) if m["type"] == "resync"] == []

    resync = await next_of(socket, "resync", timeout=EARLY_WAIT + 3)
    assert resync["version"] == shown + 2
    await socket.disconnect()
