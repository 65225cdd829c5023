"""A game open in a hidden tab is not being watched: the page's heartbeat says so (the Page
Visibility API, games/live/consumers.py), the presence lets it go, and the "your move" email is
sent as if the page were closed. Through the real websocket consumer and a real SMTP server."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from games import presence
from games.models import Seat
from tests.games.playing import draft_the_top_tile
from tests.live.conftest import connect, game_path, login, messages

from .test_your_move import your_moves

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _live_layer(live_layer, closes_thread_connections):
    """The real Redis channel layer, as in tests/live/."""


def move(game):
    """The player whose turn it is drafts and confirms (each change commits, its emails go)."""
    return draft_the_top_tile(game, lambda call, *args, **kwargs: call(*args, **kwargs))


async def test_a_hidden_tab_does_not_hold_back_the_your_move_email(start_game, inbox):
    game = await sync_to_async(start_game)(2, time_per_move=timedelta(days=1))
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    first, second = seats[0].user, seats[1].user
    socket = await connect(game_path(game, game.version), await sync_to_async(login)(second))
    assert socket.connected
    await messages(socket)

    # Shown: the second player watches, and the first player's move writes them no email.
    await socket.send_json_to({"type": "ping", "version": game.version, "visible": True})
    await messages(socket)
    assert await sync_to_async(presence.is_watching)(game.pk, second.pk)
    await sync_to_async(move)(game)  # the second player's turn, on their screen
    assert await sync_to_async(your_moves)(inbox, second, game) == []
    await sync_to_async(move)(game)  # they draft; the first player's turn

    # Hidden (another tab in front): the same socket is open, but nobody is watching.
    await socket.send_json_to({"type": "ping", "version": game.version, "visible": False})
    await messages(socket)
    assert not await sync_to_async(presence.is_watching)(game.pk, second.pk)
    await sync_to_async(move)(game)  # the first player drafts: the second player's turn again

    [message] = await sync_to_async(your_moves)(inbox, second, game)
    assert f"/games/{game.pk}/" in message.get_body(preferencelist=("plain",)).get_content()
    assert first.username in message.get_body(preferencelist=("plain",)).get_content()
    seat = await Seat.objects.aget(game=game, user=second)
    assert seat.notified_version > seat.seen_version  # one unread now: no other until they look
    await socket.disconnect()
