"""A table's waiting room is live: seats taken and given up show on every open waiting-room page,
the start turns them into the game page's socket, a cancellation says so."""

import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from games.models import Game
from games.play import actions
from tests.games.playing import next_move

from .conftest import apost_move, connect, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def room_path(game, version=None) -> str:
    """The socket of a waiting room, as live.js opens it (the seats' version in ?lobby=)."""
    version = game.version if version is None else version
    return f"/ws/games/{game.pk}/?lobby={version}"


def new_table(creator, count, **options):
    options.setdefault("time_per_move", timedelta(days=1))
    return actions.create_game(creator=creator, player_count=count, **options)


def seats_of(html: str) -> str:
    """The #seats part of a page or push, without the version stamped on it."""
    match = re.search(r'<div id="seats".*?</ol>', html, re.S)
    assert match, "no #seats"
    return re.sub(r'data-version="\d+"', "", match.group(0))


async def post(client, name, game, **data):
    return await sync_to_async(client.post)(reverse(name, args=[game.pk]), data)


async def page_of(client, game) -> str:
    response = await sync_to_async(client.get)(reverse("games:game", args=[game.pk]))
    return response.content.decode()


async def test_seats_taken_and_given_up_show_on_every_open_waiting_room(players):
    ada, brian, chloe = players[:3]
    game = await sync_to_async(new_table)(ada, 3)
    clients = {user.username: await sync_to_async(login)(user) for user in (ada, brian, chloe)}
    creator = await connect(room_path(game), clients["ada"])
    watcher = await connect(room_path(game), clients["chloe"])  # not seated: watching the table
    for socket in (creator, watcher):
        assert [m for m in await messages(socket) if m["type"] == "lobby"] == []  # up to date

    response = await post(clients["brian"], "games:join", game)
    assert response.status_code == 302

    pushed = {name: await next_of(socket, "lobby") for name, socket in
              (("ada", creator), ("chloe", watcher))}  # fmt: skip
    for name, push in pushed.items():
        assert push["version"] == game.version + 1
        assert "started" not in push
        assert ">brian</a>" in push["html"]
        assert push["html"].count('class="free"') == 1
        # The same partial as the page draws for this viewer.
        assert seats_of(push["html"]) == seats_of(await page_of(clients[name], game))
    assert "Start now with 2 players" in pushed["ada"]["html"]
    assert "Start now" not in pushed["chloe"]["html"]  # only the creator may start it

    response = await post(clients["brian"], "games:leave", game)
    assert response.status_code == 302
    for socket in (creator, watcher):
        push = await next_of(socket, "lobby")
        assert ">brian</a>" not in push["html"]
        assert push["html"].count('class="free"') == 2
    for socket in (creator, watcher):
        await socket.disconnect()


async def test_the_last_seat_taken_turns_the_waiting_room_into_the_game(players):
    ada, brian = players[:2]
    game = await sync_to_async(new_table)(ada, 2)
    ada_client, brian_client = [await sync_to_async(login)(user) for user in (ada, brian)]
    socket = await connect(room_path(game), ada_client)
    await messages(socket)

    await post(brian_client, "games:join", game)

    push = await next_of(socket, "lobby")
    await sync_to_async(game.refresh_from_db)()
    assert game.status == Game.Status.PLAYING
    assert push["started"] is True
    assert push["url"] == reverse("games:game", args=[game.pk])
    assert push["version"] == game.version
    assert "The game has started." in push["html"]
    assert "Start now" not in push["html"]
    assert '<div id="seat-actions"></div>' in push["html"]  # join, leave and invite go

    # The page loads the game page and syncs: the same socket now carries the game.
    await socket.send_json_to({"type": "sync", "version": game.version})
    assert (await next_of(socket, "synced"))["version"] == game.version
    mover, action = await sync_to_async(next_move)(game)
    seat_user = await sync_to_async(lambda: game.seats.get(number=mover).user_id)()
    mover_client = ada_client if seat_user == ada.pk else brian_client
    response = await apost_move(mover_client, game, action.to_json(), game.version)
    assert response.status_code == 200
    push = await next_of(socket, "push")
    assert push["version"] == game.version + 1
    await socket.disconnect()


async def test_start_now_and_cancel_reach_the_open_waiting_rooms(players):
    ada, brian = players[:2]
    started = await sync_to_async(new_table)(ada, 3)
    cancelled = await sync_to_async(new_table)(ada, 3)
    ada_client, brian_client = [await sync_to_async(login)(user) for user in (ada, brian)]
    await post(brian_client, "games:join", started)
    await sync_to_async(started.refresh_from_db)()
    sockets = [
        await connect(room_path(started), brian_client),
        await connect(room_path(cancelled), brian_client),
    ]
    for socket in sockets:
        await messages(socket)

    await post(ada_client, "games:start", started)
    await post(ada_client, "games:cancel", cancelled)

    push = await next_of(sockets[0], "lobby")
    assert push["started"] is True and "The game has started." in push["html"]
    push = await next_of(sockets[1], "lobby")
    assert "started" not in push
    assert "This game was cancelled." in push["html"]
    assert '<div id="seat-actions"></div>' in push["html"]
    for socket in sockets:
        await socket.disconnect()


async def test_a_waiting_room_that_connects_late_catches_up(players):
    ada, brian, chloe = players[:3]
    game = await sync_to_async(new_table)(ada, 3)
    shown = game.version  # the page was drawn here; its socket connects after two changes
    await sync_to_async(actions.join_game)(game_id=game.pk, user=brian)
    ada_client = await sync_to_async(login)(ada)

    socket = await connect(room_path(game, shown), ada_client)
    push = await next_of(socket, "lobby")
    assert ">brian</a>" in push["html"] and "started" not in push

    up_to_date = await connect(room_path(game, shown + 1), ada_client)
    assert [m for m in await messages(up_to_date) if m["type"] == "lobby"] == []

    await sync_to_async(actions.join_game)(game_id=game.pk, user=chloe)  # full: it starts
    late = await connect(room_path(game, shown + 1), ada_client)
    push = await next_of(late, "lobby")
    assert push["started"] is True
    for each in (socket, up_to_date, late):
        await each.disconnect()


async def test_a_refused_join_pushes_nothing(players):
    ada, chloe = players[0], players[2]
    game = await sync_to_async(new_table)(ada, 2, access=Game.Access.INVITATION)
    socket = await connect(room_path(game), await sync_to_async(login)(ada))
    await messages(socket)

    response = await post(await sync_to_async(login)(chloe), "games:join", game)  # not invited

    assert response.status_code == 404  # a private table she may not see: as a missing one
    assert [m for m in await messages(socket, timeout=0.5) if m["type"] == "lobby"] == []
    await socket.disconnect()
