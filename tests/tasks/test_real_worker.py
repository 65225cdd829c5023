"""A real Celery worker process, on the run's Redis and the test database, does the timed work:
the forced take queued after a move, a timeout queued by the sweep, and the server's stand-in
for a player who resigned. Its emails go over SMTP to a real (local) SMTP server."""

from datetime import timedelta

import pytest
from django.utils import timezone
from kombu import pools

from accounts import vacations
from accounts.models import User
from games import rules, tasks
from games.history.replay import rebuild_state
from games.models import Event, Game, RatingChange, Seat
from games.play import actions
from microchip_site.celery import app
from tests.email.smtp import smtp_server, text_part
from tests.games.playing import current_state

from .conftest import sending_to, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


def seat_user(game, number):
    return game.seats.get(number=number).user


def test_a_real_worker_takes_the_last_tile_and_times_out_a_turn(celery_worker_process, start_game):
    with smtp_server() as (inbox, port):
        worker = celery_worker_process(EMAIL_URL=f"smtp://127.0.0.1:{port}")
        with sending_to(worker.broker_url):
            app.control.purge()  # nothing left over from an earlier run
            game = start_game(2, time_per_move=timedelta(hours=1))

            # Four drafts leave one tile in the draw column: the move's commit queues the
            # forced take, and the worker takes it for the next player.
            for _ in range(4):
                state = current_state(game)
                user = seat_user(game, state.current)
                actions.play(
                    game_id=game.pk,
                    user=user,
                    action=rules.Draft(state.draw_tiles()[0]),
                    seen_version=None,
                )
                actions.play(
                    game_id=game.pk, user=user, action=rules.ConfirmDraft(), seen_version=None
                )

            forced = wait_until(
                lambda: game.events.filter(kind="take_last").first(),
                what="the worker's forced take",
            )
            assert forced.cause == Event.Cause.FORCED_TAKE
            assert forced.actor is None
            wait_until(lambda: current_state(game).current == 1, what="the turn passing on")

            # The second player lets the time run out; the sweep finds the game and the
            # worker plays the turn for them.
            late = seat_user(game, 1)
            Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
            tasks.sweep.delay()

            wait_until(
                lambda: Seat.objects.get(game=game, number=1).timeouts == 1,
                what="the worker's timeout",
            )
        game.refresh_from_db()
        timed_out = list(game.events.filter(cause=Event.Cause.TIMEOUT).order_by("number"))
        assert [event.kind for event in timed_out] == ["draft", "confirm_draft"]
        assert all(event.seat == 1 and event.actor is None for event in timed_out)
        assert game.current_seat == 0
        assert game.deadline > timezone.now() + timedelta(minutes=50)

        # The worker sent the timeout email over SMTP, with its unsubscribe headers.
        email = inbox.wait_for(lambda m: late.email in m["To"] and "time ran out" in m["Subject"])
        assert email["List-Unsubscribe"].strip().startswith("<http")
        assert email["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert f"/games/{game.pk}/" in text_part(email)
        assert "Traceback" not in worker.log()


def test_a_real_worker_plays_the_seat_of_a_player_who_resigned_to_the_end(
    celery_worker_process, players
):
    """Two people and a computer player; one resigns near the end of the drafting. The worker
    plays their seat with the server's easy player, and the computer player's, while the other
    person plays on, and the game ends, rated, with the resigner last."""
    ada, brian = players[0], players[1]
    game = actions.create_game(
        creator=ada, player_count=3, time_per_move=timedelta(hours=1), bots=("easy",)
    )
    actions.join_game(game_id=game.pk, user=brian)
    people = {seat.number: seat.user for seat in game.seats.all() if not seat.user.is_bot}
    # Most of the game is played at once, in this process (its tasks run eagerly here).
    while current_state(game).pool_size() > 7:
        draft_for(game, people)
    ada_seat = next(number for number, user in people.items() if user == ada)
    brian_seat = next(number for number, user in people.items() if user == brian)

    worker = celery_worker_process()
    with sending_to(worker.broker_url):
        app.control.purge()
        actions.resign(game_id=game.pk, user=ada)

        def brian_plays_on():
            game.refresh_from_db()
            if not game.is_playing:
                return True
            state = current_state(game)
            if state.phase == rules.DRAFTING and state.current == brian_seat:
                if state.forced_action() is None:  # the worker takes a column's last tile
                    draft_for(game, {brian_seat: brian})
            elif state.phase == rules.FINISHING and not state.finished[brian_seat]:
                actions.play(game_id=game.pk, user=brian, action=rules.Finish(), seen_version=None)
            return False

        wait_until(brian_plays_on, timeout=120, what="the end of the game")

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    seats = list(game.seats.order_by("number"))
    assert seats[ada_seat].left == Seat.Left.RESIGNED and seats[ada_seat].place == 3
    assert all(seat.finished for seat in seats)
    stood_in = game.events.filter(seat=ada_seat, cause=Event.Cause.STAND_IN)
    assert stood_in.filter(kind="finish").exists()
    assert not game.events.filter(seat=ada_seat, actor=ada, number__gt=seats[ada_seat].left_version)
    assert sorted(seat.place for seat in seats if seat.number != ada_seat)[0] == 1
    assert RatingChange.objects.filter(game=game).count() == 3
    assert rebuild_state(game) == current_state(game)
    assert "Traceback" not in worker.log()


def draft_for(game, people):
    """The person whose turn it is drafts the draw column's top tile and confirms it."""
    state = current_state(game)
    user = people.get(state.current)
    if user is None or state.forced_action() is not None:
        return
    for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)


def test_a_real_worker_s_forced_take_begins_a_turn_and_takes_its_queued_draft(
    celery_worker_process, start_game
):
    """The worker's own transaction (the forced take) begins the next turn and drafts what that
    player queued, confirmed as they asked."""
    worker = celery_worker_process()
    with sending_to(worker.broker_url):
        app.control.purge()
        game = start_game(3, time_per_move=timedelta(hours=1))

        def draft_top():
            state = current_state(game)
            user = seat_user(game, state.current)
            for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
                actions.play(game_id=game.pk, user=user, action=action, seen_version=None)

        for _ in range(3):  # two tiles left in column 12; seat 0 drafts, seat 1's is forced
            draft_top()
        wanted = current_state(game).columns[10][2]
        actions.queue_drafts(
            game_id=game.pk,
            user=seat_user(game, 2),
            tiles=[wanted],
            confirm=True,
            seen_version=None,
        )
        draft_top()

        confirmed = wait_until(
            lambda: game.events.filter(kind="confirm_draft", cause=Event.Cause.QUEUED).first(),
            what="the queued draft taken in the worker",
        )
    take = game.events.get(kind="take_last")
    assert (take.seat, take.cause) == (1, Event.Cause.FORCED_TAKE)
    assert confirmed.seat == 2 and confirmed.number == take.number + 2
    assert current_state(game).trays[2][-1] == wanted
    assert current_state(game).current == 0


def test_a_real_worker_ends_a_vacation_that_ran_out_and_redraws_the_players_games(
    celery_worker_process, start_game
):
    worker = celery_worker_process()
    pools.reset()  # kombu keeps the pool the test above closed (the same broker URL)
    with sending_to(worker.broker_url):
        app.control.purge()
        game = start_game(2, time_per_move=timedelta(hours=1))
        away = seat_user(game, 0)
        # Her vacation began two hours ago and ran out an hour ago: only the sweep can end it.
        began = timezone.now() - timedelta(hours=2)
        vacations.begin(away, began, timedelta(hours=1))
        away.save()
        version = Game.objects.get(pk=game.pk).version

        tasks.sweep.delay()

        wait_until(
            lambda: not User.objects.filter(pk=away.pk, vacation_until__isnull=False).exists(),
            what="the worker ending the vacation",
        )
        wait_until(lambda: Game.objects.get(pk=game.pk).version == version + 1, what="a redraw")
    away = User.objects.get(pk=away.pk)
    assert away.vacation_days == timedelta(days=30) - timedelta(hours=1)  # charged to its end
    assert vacations.breaks(away) == ((began, began + timedelta(hours=1)),)
    assert game.events.get(number=version + 1).kind == "vacation_ended"
    assert "Traceback" not in worker.log()
