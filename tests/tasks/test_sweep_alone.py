"""A game whose players all stop playing still reaches its end and results, through timeouts
alone, driven by nothing but the periodic sweep on a simulated clock."""

from datetime import timedelta

import pytest
from django.core import mail

from games import rules, tasks
from games.history.replay import rebuild_state
from games.models import Event, Game
from tests.games.playing import current_state

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
# Beat runs the sweep every minute; the simulated clock jumps further between sweeps, so that
# each turn sees a sweep before its reminder, one after it, and one after its deadline.
STEP = timedelta(minutes=25)


def test_a_game_nobody_plays_ends_with_results_through_the_sweep_alone(
    clock, start_game, django_capture_on_commit_callbacks, monkeypatch
):
    # The forced takes queued after each change are lost: only the sweep moves the game.
    monkeypatch.setattr(tasks.take_last_tile, "delay", lambda *args, **kwargs: None)
    count = 3
    game = start_game(count, time_per_move=HOUR)
    drafts = rules.drafts_per_player(count) * count

    sweeps = 0
    while game.status == Game.Status.PLAYING:
        assert sweeps < 4 * drafts + 10, "the sweep does not finish the game"
        clock.advance(STEP)
        with django_capture_on_commit_callbacks(execute=True):
            tasks.sweep()
        sweeps += 1
        game.refresh_from_db()

    final = current_state(game)
    assert final.is_terminal()
    assert rebuild_state(game) == final  # the whole history replays
    for result in final.results():
        seat = game.seats.get(number=result.seat)
        assert (seat.score, seat.place) == (result.score, result.place)
    moves = game.events.exclude(action=None)
    causes = set(moves.values_list("cause", flat=True))
    assert causes <= {Event.Cause.TIMEOUT, Event.Cause.FORCED_TAKE, Event.Cause.DEADLINE}
    assert not moves.filter(cause=Event.Cause.PLAYER).exists()
    timeouts = moves.filter(cause=Event.Cause.TIMEOUT, kind="confirm_draft").count()
    forced = moves.filter(kind="take_last").count()
    assert timeouts + forced == drafts
    # Each timed-out turn, and each board submitted at the finishing deadline, is on the record.
    assert sum(game.seats.values_list("timeouts", flat=True)) == timeouts + count

    # Every player was reminded and told of their timeouts, and got the result.
    for seat in game.seats.select_related("user"):
        subjects = [m.subject for m in mail.outbox if m.to == [seat.user.email]]
        assert any("running out" in subject for subject in subjects)
        assert any("time ran out" in subject for subject in subjects)
        assert sum("is over" in subject for subject in subjects) == 1
