"""A player changes their queued draft at the very moment their turn begins: the game row's lock
puts one change first, and no queue is ever left behind for a turn that has begun."""

import pytest

from games import rules
from games.models import Event
from games.play import actions
from games.play.errors import ActionRefused

from .playing import current_state
from .test_races import race

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("attempt", range(4))
def test_queuing_while_the_turn_begins_either_drafts_the_queue_or_refuses_it(start_game, attempt):
    game = start_game(2)
    drafter, waiting = (game.seats.get(number=n).user for n in (0, 1))
    column = current_state(game).draw_tiles()
    actions.play(game_id=game.pk, user=drafter, action=rules.Draft(column[0]), seen_version=None)
    game.refresh_from_db()
    seen = game.version

    outcomes = race(
        lambda: actions.play(
            game_id=game.pk, user=drafter, action=rules.ConfirmDraft(), seen_version=seen
        ),
        lambda: actions.queue_drafts(
            game_id=game.pk, user=waiting, tiles=[column[3]], confirm=True, seen_version=seen
        ),
    )

    confirmed, queued = outcomes
    assert isinstance(confirmed, actions.Played), confirmed
    state = current_state(game)
    taken = game.events.filter(cause=Event.Cause.QUEUED, seat=1).count()
    if isinstance(queued, actions.Queued):  # the queue came first: drafted as the turn began
        assert state.trays[1] == (column[3],) and taken == 2
        assert state.current == 0
    else:  # the turn came first: refused, their turn waits for them
        assert isinstance(queued, ActionRefused) and queued.code in ("stale", "your_turn_now")
        assert state.trays[1] == () and taken == 0 and state.current == 1
    seat = game.seats.get(number=1)
    assert seat.queue.tiles == ()  # never a queue left for a turn that has begun
