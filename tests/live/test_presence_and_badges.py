"""Online dots on the boards, and the player's own channel: badge and notices on every page."""

import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from games import presence
from games.models import Game
from games.play import actions
from tests.games.playing import next_move

from .conftest import apost_move, connect, game_path, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def dots(html: str) -> dict[int, bool]:
    """{seat number: online} for each presence dot in `html`."""
    found = re.findall(r'id="presence-(\d+)" class="presence( online)?"', html)
    return {int(number): bool(online) for number, online in found}


def badge(html: str) -> int | None:
    match = re.search(
        r'<span id="turn-badge" class="badge"( hidden)?[^>]*>.*?(\d+)</span>', html, re.S
    )
    return None if match is None else int(match.group(2))


async def play_until_the_turn_passes(game, clients):
    """Draft, arrange and confirm over HTTP until another seat is to move."""
    mover = game.current_seat
    while game.current_seat == mover:
        seat, action = await sync_to_async(next_move)(game)  # refreshes `game`
        response = await apost_move(clients[seat], game, action.to_json(), game.version)
        assert response.status_code == 200
        await sync_to_async(game.refresh_from_db)()


async def test_each_board_shows_whether_its_player_has_the_game_open(start_game):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    first, second = [await sync_to_async(login)(seat.user) for seat in seats]

    watching = await connect(game_path(game, game.version), first)
    on_connect = [m for m in await messages(watching) if m["type"] == "presence"]
    assert dots(on_connect[-1]["html"]) == {0: True, 1: False}

    other = await connect(game_path(game, game.version), second)
    arrived = await next_of(watching, "presence")
    assert dots(arrived["html"]) == {1: True}

    await other.disconnect()
    left = await next_of(watching, "presence")
    assert dots(left["html"]) == {1: False}
    await watching.disconnect()


async def test_the_page_draws_the_dots_and_a_push_keeps_them(start_game):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    socket = await connect(game_path(game, game.version), clients[1])
    await messages(socket)

    page = await sync_to_async(clients[0].get)(f"/games/{game.pk}/")
    assert dots(page.content.decode()) == {0: False, 1: True}

    mover, action = await sync_to_async(next_move)(game)
    await apost_move(clients[mover], game, action.to_json(), game.version)
    push = await next_of(socket, "push")
    assert dots(push["html"])[mover] == (mover == 1)
    await socket.disconnect()


async def test_whose_turn_it_is_reaches_the_players_other_pages_with_a_badge(start_game):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    mover = game.current_seat
    waiting = 1 - mover
    elsewhere = {n: await connect("/ws/live/", clients[n]) for n in (0, 1)}  # e.g. the dashboard
    connected = {n: await messages(socket) for n, socket in elsewhere.items()}
    assert badge(connected[mover][0]["html"]) == 1  # it is their turn
    assert badge(connected[waiting][0]["html"]) == 0

    await play_until_the_turn_passes(game, clients)

    told = [m for m in await messages(elsewhere[waiting]) if m["type"] == "user"]
    assert any(badge(m["html"]) == 1 for m in told)
    assert any("It is your turn in" in m["html"] for m in told)
    told_the_mover = [m for m in await messages(elsewhere[mover]) if m["type"] == "user"]
    assert badge(told_the_mover[-1]["html"]) == 0
    for socket in elsewhere.values():
        await socket.disconnect()


async def test_an_invitation_reaches_the_invited_player_at_once(players):
    brian = await sync_to_async(login)(players[1])
    socket = await connect("/ws/live/", brian)
    await messages(socket)

    await sync_to_async(actions.create_game)(
        creator=players[0],
        player_count=2,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
        name="Friday chips",
    )

    told = await next_of(socket, "user")
    assert "ada invites you to" in told["html"] and "Friday chips" in told["html"]
    assert badge(told["html"]) == 1
    await socket.disconnect()


async def test_a_notice_about_the_game_on_the_page_is_left_out(start_game):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = [await sync_to_async(login)(seat.user) for seat in seats]
    waiting = 1 - game.current_seat
    on_the_game = await connect(game_path(game, game.version), clients[waiting])
    await messages(on_the_game)

    await play_until_the_turn_passes(game, clients)

    told = [m for m in await messages(on_the_game) if m["type"] == "user"]
    assert told and all("It is your turn in" not in m["html"] for m in told)
    await on_the_game.disconnect()


async def test_only_the_seats_presence_is_recorded_and_a_seat_taken_counts_at_once(players):
    # Only the seats' presence is read (their dots, their held-back emails): a watcher's page
    # records none (issue 36: a Redis transaction per watcher per heartbeat), and one who takes
    # a seat in the waiting room is recorded then, not at their next heartbeat.
    ada, brian, chloe = players[:3]
    game = await sync_to_async(actions.create_game)(
        creator=ada, player_count=3, time_per_move=timedelta(days=1)
    )
    clients = {user.pk: await sync_to_async(login)(user) for user in (ada, brian, chloe)}
    path = f"/ws/games/{game.pk}/?lobby={game.version}"
    sockets = [await connect(path, clients[user.pk]) for user in (ada, brian, chloe)]
    for socket in sockets:
        await socket.send_json_to({"type": "ping", "visible": True})
        await messages(socket)
    present = sync_to_async(presence.watching)
    assert await present(game.pk, [ada.pk, brian.pk, chloe.pk]) == {ada.pk}

    await sync_to_async(actions.join_game)(game_id=game.pk, user=brian)
    await next_of(sockets[1], "lobby")
    assert await present(game.pk, [ada.pk, brian.pk, chloe.pk]) == {ada.pk, brian.pk}
    for socket in sockets:
        await socket.disconnect()
    assert await present(game.pk, [ada.pk, brian.pk, chloe.pk]) == set()
