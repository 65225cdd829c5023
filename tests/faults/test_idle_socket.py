"""A page left open on a game that nobody moves in keeps its socket, and gets the next move.

With the list-based channel layer the consumer waited for its messages with a blocking Redis pop
of 5 s at a time. redis-py 8 gives every connection a 5 s read timeout by default, so the wait
timed out in the client first, the consumer died, and every idle page was disconnected every 5
seconds (github.com/django/channels_redis/issues/422). The publish/subscribe layer the site uses
now (settings.CHANNEL_LAYERS) listens on one connection per process; an idle page must still keep
its socket for longer than any such read timeout.
"""

from datetime import timedelta

import pytest

from games import rules
from games.play import actions
from infra.services import free_port

from .checks import final_state
from .clients import Browser, LiveSocket
from .conftest import wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


REDIS_READ_TIMEOUT = 5.0


def test_an_idle_page_keeps_its_socket_and_gets_the_next_move(stack, make_player):
    port = free_port()
    stack.daphne(port)
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game.refresh_from_db()
    mover = game.seats.get(number=game.current_seat).user
    socket = LiveSocket(Browser(ada, port), game.pk, game.version)
    try:
        assert socket.connect() == 1
        wait_until(lambda: socket.received(1), 10, "the socket's first answer")
        # Nothing happens for longer than redis-py's default read timeout.
        idle = REDIS_READ_TIMEOUT * 1.5
        assert not socket.closed.wait(idle), f"the idle socket was closed: {socket.closes}"
        draft = rules.Draft(final_state(game).draw_tiles()[0])
        status, _ = Browser(mover, port).post(
            f"/games/{game.pk}/act/", {**draft.to_json(), "version": game.version}
        )
        assert status == 200
        wait_until(
            lambda: socket.received(1, kinds=("push",)), 10, "the move's push on the same socket"
        )
        assert socket.connections == 1 and not socket.closes
    finally:
        socket.close()
