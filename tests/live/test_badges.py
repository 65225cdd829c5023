"""The nav badge: only the players whose count of waiting games a move changed hear of it, and
each open page keeps its count game by game, redrawing it without a query."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from games.drawing import badge as badges_drawn
from games.models import Game
from games.play import actions
from tests.games.playing import next_move

from .conftest import apost_move, connect, login, messages, next_of
from .test_presence_and_badges import badge, play_until_the_turn_passes

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def seated(start_game, count):
    game = await sync_to_async(start_game)(count)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = {seat.number: await sync_to_async(login)(seat.user) for seat in seats}
    return game, seats, clients


def badges(received) -> list[int]:
    """The badges drawn in these messages, in order."""
    drawn = [badge(m["html"]) for m in received if m["type"] == "user"]
    return [count for count in drawn if count is not None]


async def test_a_turn_passing_tells_only_the_two_players_concerned(start_game):
    game, _, clients = await seated(start_game, 3)
    mover = game.current_seat
    elsewhere = {n: await connect("/ws/live/", clients[n]) for n in clients}  # e.g. the dashboard
    for socket in elsewhere.values():
        await messages(socket)

    await play_until_the_turn_passes(game, clients)  # early on: no forced take in between

    told = {
        n: [m for m in await messages(socket) if m["type"] == "user"]
        for n, socket in elsewhere.items()
    }
    third = ({0, 1, 2} - {mover, game.current_seat}).pop()
    assert told[third] == []
    assert badges(told[mover]) == [0]
    assert badges(told[game.current_seat]) == [1]
    for socket in elsewhere.values():
        await socket.disconnect()


@pytest.mark.slow
async def test_the_badge_drawn_from_the_events_is_the_one_the_page_would_draw(
    start_game, monkeypatch
):
    game, seats, clients = await seated(start_game, 2)
    elsewhere = {n: await connect("/ws/live/", clients[n]) for n in clients}
    shown = {}
    for n, socket in elsewhere.items():
        shown[n] = badges(await messages(socket))[-1]
    counted = []
    real_count = badges_drawn.count_badge
    monkeypatch.setattr(
        badges_drawn, "count_badge", lambda user: counted.append(user) or real_count(user)
    )

    for _ in range(12):  # drafts, placements, confirmations, whose turn it is passing
        seat, action = await sync_to_async(next_move)(game)
        response = await apost_move(clients[seat], game, action.to_json(), game.version)
        assert response.status_code == 200
        await sync_to_async(game.refresh_from_db)()
        for n, socket in elsewhere.items():
            shown[n] = [shown[n], *badges(await messages(socket))][-1]
            page = await sync_to_async(lambda user: real_count(user).draw())(seats[n].user)
            assert shown[n] == badge(page), (n, game.version)

    assert counted == []  # every redraw came from the events, without a query
    for socket in elsewhere.values():
        await socket.disconnect()


async def test_an_invitation_that_stops_counting_is_taken_off_the_badge(players):
    brian = await sync_to_async(login)(players[1])
    socket = await connect("/ws/live/", brian)
    await messages(socket)
    game = await sync_to_async(actions.create_game)(
        creator=players[0],
        player_count=3,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
    )
    assert badge((await next_of(socket, "user"))["html"]) == 1

    await sync_to_async(actions.cancel_game)(game_id=game.pk, user=players[0])

    assert badge((await next_of(socket, "user"))["html"]) == 0
    await socket.disconnect()


async def test_a_late_or_repeated_event_changes_nothing_and_an_unknown_game_is_counted_again():
    count = badges_drawn.Badge(games={1: (10, True), 2: (7, False)}, invitations=1)
    assert (count.turns, count.invitations) == (1, 1)

    assert count.update(1, 12, False) is True  # game 1 stopped waiting at version 12
    assert count.update(1, 11, True) is False  # an older event, arriving late
    assert count.update(1, 12, True) is False
    assert count.update(2, 7, True) is False  # the count was read at that version
    assert count.turns == 0
    assert count.update(2, 9, True) is True
    assert count.update(2, 10, True) is False  # news, but the same count
    assert count.turns == 1
    assert count.update(3, 1, True) is None  # not a game this count knows: count again
    assert 'title="1 game waiting for your move, 1 invitation"' in count.draw()
