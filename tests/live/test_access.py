"""Who may open a game's socket, and what happens to what a client sends."""

import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from games.models import Game
from games.play import actions

from .conftest import closed_with, connect, game_path, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def invitation_table(players):
    return actions.create_game(
        creator=players[0],
        player_count=3,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
    )


async def test_a_table_by_invitation_is_closed_to_everyone_not_seated_or_invited(players):
    game = await sync_to_async(invitation_table)(players)
    outsider = await sync_to_async(login)(players[2])
    invited = await sync_to_async(login)(players[1])

    refused = [await connect(game_path(game), outsider), await connect(game_path(game))]
    welcome = await connect(game_path(game), invited)

    for socket in refused:  # answered as a game that does not exist: it does not reveal itself
        assert await closed_with(socket) == 4404
    assert await welcome.receive_nothing(timeout=0.3) or (await messages(welcome))
    await welcome.disconnect()


@pytest.mark.parametrize("private", [True, False])
async def test_a_started_table_is_watched_live_by_outsiders_only_when_public(players, private):
    """Once it started, a private table stays closed (the whole game was sent to an anonymous
    socket before, issue 20); a public one may be watched by anyone."""

    def started():
        game = actions.create_game(
            creator=players[0], player_count=2, time_per_move=timedelta(days=1),
            access=Game.Access.INVITATION, invitees=("brian",), private=private,
        )  # fmt: skip
        actions.join_game(game_id=game.pk, user=players[1])
        game.refresh_from_db()
        return game

    game = await sync_to_async(started)()
    outsider = await sync_to_async(login)(players[3])
    for client in (outsider, None):
        socket = await connect(game_path(game, 0), client)
        if private:
            assert await closed_with(socket) == 4404
        else:
            resync = await next_of(socket, "resync")
            assert resync["version"] == game.version
            await socket.disconnect()


async def test_no_such_game_no_signed_in_user_and_a_foreign_origin_are_refused(players):
    ada = await sync_to_async(login)(players[0])

    assert await closed_with(await connect("/ws/games/999999/", ada)) == 4404
    assert await closed_with(await connect("/ws/live/")) == 4401  # anonymous: no own channel
    foreign = await connect("/ws/live/", ada, origin=b"https://evil.example")
    assert not foreign.connected
    no_origin = await connect("/ws/live/", ada, origin=None)
    assert not no_origin.connected


@pytest.mark.parametrize(
    "origin",
    [
        b"http://localhost:8001",  # the site's host on another port
        b"https://localhost:8000",  # another scheme
        b"http://localhost",  # the default port is another port
        b"http://evil.localhost:8000",
        b"null",
        b"http://localhost:8000.evil.example",
    ],
)
async def test_only_the_sites_whole_origin_may_open_a_socket(players, settings, origin):
    assert settings.SITE_URL == "http://localhost:8000"
    ada = await sync_to_async(login)(players[0])

    assert (await connect("/ws/live/", ada)).connected  # the site's own
    refused = await connect("/ws/live/", ada, origin=origin, host=b"localhost:8000")
    assert not refused.connected


async def test_a_page_of_the_address_the_socket_was_opened_to_may_open_it(players):
    """Same origin, as Django's CSRF check reasons: a development server reached as 127.0.0.1
    while SITE_URL says localhost."""
    ada = await sync_to_async(login)(players[0])
    same = await connect("/ws/live/", ada, origin=b"http://127.0.0.1:8123", host=b"127.0.0.1:8123")
    assert same.connected
    other = await connect("/ws/live/", ada, origin=b"http://127.0.0.1:8124", host=b"127.0.0.1:8123")
    assert not other.connected


async def test_nonsense_from_a_client_is_logged_and_ignored(start_game, caplog):
    game = await sync_to_async(start_game)(2)
    user = await sync_to_async(lambda: game.seats.get(number=0).user)()
    socket = await connect(game_path(game, game.version), await sync_to_async(login)(user))
    await messages(socket)
    caplog.set_level("INFO", logger="games.live.consumers")

    for junk in [
        "not json",
        "[1, 2]",
        "null",
        json.dumps({"type": "launch_missiles"}),
        json.dumps({"type": "sync"}),
        json.dumps({"type": "sync", "version": "twelve"}),
        json.dumps({"type": "sync", "version": -1}),
        json.dumps({"type": "sync", "version": True}),
        json.dumps({"type": "sync", "version": 2**40}),
        json.dumps({"type": "ping", "padding": "x" * 10_000}),
    ]:
        await socket.send_to(text_data=junk)
    await socket.send_to(bytes_data=b"\x00\xff")

    await socket.send_json_to({"type": "sync", "version": game.version})
    synced = await next_of(socket, "synced")
    assert synced["version"] == game.version
    assert caplog.text.count("live: ignored") == 11
    await socket.disconnect()


async def test_a_client_that_floods_the_socket_is_cut_off(start_game, caplog):
    game = await sync_to_async(start_game)(2)
    socket = await connect(game_path(game, game.version))
    await messages(socket)

    for _ in range(40):
        await socket.send_json_to({"type": "ping"})

    assert await closed_with(socket) == 4408
    # The rest of the burst is dropped unlogged: a flood does not flood the log too.
    assert await socket.receive_nothing(timeout=0.3)
    assert caplog.text.count("too many messages") == 1
