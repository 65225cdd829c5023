"""A game whose players all stop playing still reaches its end and results, through timeouts
alone, driven by nothing but the periodic sweep on a simulated clock: their seats are handed to
the server as they time out too often (games/play/leaving.py), and the game ends when one player
is left."""

from datetime import timedelta

import pytest
from django.core import mail

from games import tasks
from games.history.replay import rebuild_state
from games.models import Event, Game
from tests.games.playing import current_state

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
# Beat runs the sweep every minute; the simulated clock jumps further between sweeps, so that
# each turn sees a sweep before its reminder, one after it, and one after its deadline.
STEP = timedelta(minutes=25)


@pytest.mark.slow
def test_a_game_nobody_plays_ends_with_results_through_the_sweep_alone(
    clock, start_game, django_capture_on_commit_callbacks, monkeypatch
):
    # The forced takes queued after each change are lost: only the sweep moves the game.
    monkeypatch.setattr(tasks.take_last_tile, "delay", lambda *args, **kwargs: None)
    count = 3
    game = start_game(count, time_per_move=HOUR)
    sweep_until_over(game, clock, django_capture_on_commit_callbacks, 30)

    final = current_state(game)
    assert final.is_terminal() and final.ended_early()
    assert rebuild_state(game) == final  # the whole history replays
    for result in final.results():
        seat = game.seats.get(number=result.seat)
        assert (seat.score, seat.place) == (result.score, result.place)
    moves = game.events.exclude(action=None)
    causes = set(moves.values_list("cause", flat=True))
    assert causes <= {
        Event.Cause.TIMEOUT, Event.Cause.FORCED_TAKE, Event.Cause.ABANDONED, Event.Cause.STAND_IN
    }  # fmt: skip
    timeouts = moves.filter(cause=Event.Cause.TIMEOUT, kind="confirm_draft").count()
    assert sum(game.seats.values_list("timeouts", flat=True)) == timeouts
    # Three timeouts in a row hand a seat to the server; when one player is left, the game
    # ends: they win, and those who left are ranked in reverse order of leaving.
    seats = list(game.seats.select_related("user").order_by("number"))
    [stayed] = [seat for seat in seats if not seat.left]
    gone = sorted((seat for seat in seats if seat.left), key=lambda seat: -seat.left_version)
    assert [seat.left for seat in gone] == ["abandoned", "abandoned"]
    assert [seat.timeouts_in_row for seat in gone] == [3, 3]
    assert [stayed.place, *(seat.place for seat in gone)] == [1, 2, 3]

    # Every player was reminded, told of their timeouts, of their seat handed over, and got
    # the result.
    for seat in seats:
        subjects = [m.subject for m in mail.outbox if m.to == [seat.user.email]]
        assert any("running out" in subject for subject in subjects)
        assert any("time ran out" in subject for subject in subjects)
        handed = sum("taken over your seat" in subject for subject in subjects)
        assert handed == (1 if seat.left else 0)
        assert sum("is over" in subject for subject in subjects) == 1


def sweep_until_over(game, clock, capture, turns):
    sweeps = 0
    while game.status == Game.Status.PLAYING:
        assert sweeps < 4 * turns + 10, "the sweep does not finish the game"
        clock.advance(STEP)
        with capture(execute=True):
            tasks.sweep()
        sweeps += 1
        game.refresh_from_db()
