"""Queued drafts taken as a turn begins when the server's timed work begins it, on a simulated
clock: a timeout, a forced take whose task was lost (the sweep), and the fallback when none of
the queue is left."""

from datetime import timedelta

import pytest
from django.core import mail

from games import tasks
from games.models import Event
from games.play import actions
from games.rules import Draft
from tests.games.playing import current_state, draft_the_top_tile

from .helpers import seat_user

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def queue(game, number, tiles, confirm):
    actions.queue_drafts(
        game_id=game.pk,
        user=seat_user(game, number),
        tiles=tiles,
        confirm=confirm,
        seen_version=None,
    )


def test_the_queue_is_taken_when_the_other_player_s_time_runs_out(clock, start_game, committed):
    game = start_game(2, time_per_move=HOUR)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[0], column[1], column[2], column[3], column[4]], confirm=True)
    mail.outbox.clear()

    clock.advance(HOUR + timedelta(seconds=1))
    committed(tasks.sweep)  # seat 0 timed out: the server drafts for them; seat 1's turn begins

    game.refresh_from_db()
    timed_out = game.events.get(kind="draft", cause=Event.Cause.TIMEOUT).action["tile_id"]
    queued = game.events.get(kind="draft", cause=Event.Cause.QUEUED).action["tile_id"]
    assert queued == next(tile for tile in column if tile != timed_out)  # the first still there
    assert current_state(game).trays[1] == (queued,)
    assert game.current_seat == 0 and game.deadline == clock.now() + HOUR
    player = seat_user(game, 1)
    assert not [m for m in mail.outbox if m.to == [player.email]]  # played for them


def test_a_lost_forced_take_is_swept_and_the_next_player_s_queue_taken(
    clock, start_game, committed, lost_tasks
):
    lost = lost_tasks("games.take_last_tile")
    game = start_game(2, time_per_move=HOUR)
    for _ in range(4):  # one tile left in column 10: seat 0's forced take, then seat 1 from 9
        draft_the_top_tile(game, committed)
    state = current_state(game)
    assert state.forced_action() is not None and lost
    column_9 = state.columns[8]
    queue(game, 1, [column_9[4]], confirm=False)
    mail.outbox.clear()

    committed(tasks.sweep)

    game.refresh_from_db()
    assert game.events.get(kind="take_last").seat == 0
    state = current_state(game)
    assert state.current == 1 and state.pending.tile_id == column_9[4]
    assert game.events.get(cause=Event.Cause.QUEUED).kind == "draft"  # waits for its confirm
    [email] = [m for m in mail.outbox if m.to == [seat_user(game, 1).email]]
    assert "Your queued draft took the" in email.body and "confirm it" in email.body


def test_none_left_after_a_timeout_the_player_is_told_and_their_time_runs(
    clock, start_game, committed, monkeypatch
):
    game = start_game(2, time_per_move=HOUR)
    column = current_state(game).draw_tiles()
    # The server's draft for a player whose time ran out takes the top tile here.
    monkeypatch.setattr("games.rules.timeout_action", lambda state, seat: Draft(column[0]))
    queue(game, 1, [column[0]], confirm=True)
    mail.outbox.clear()

    clock.advance(HOUR + timedelta(seconds=1))
    committed(tasks.sweep)

    game.refresh_from_db()
    assert game.current_seat == 1 and current_state(game).pending is None
    assert not game.events.filter(cause=Event.Cause.QUEUED).exists()
    assert game.deadline == clock.now() + HOUR
    [email] = [m for m in mail.outbox if m.to == [seat_user(game, 1).email]]
    assert "None of your queued tiles was left in column 10" in email.body
