"""Timeouts, finishing deadlines, forced takes and reminders, run eagerly on a simulated clock."""

from datetime import timedelta

import pytest
from django.core import mail

from accounts.bots import new_bot
from accounts.models import User
from games import rules, tasks
from games.models import Event, Game, Seat
from games.play import actions
from games.play import clock as turn_clock
from games.rules.greedy import choose_draft
from infra.models import OutboxEmail
from infra.tasks import send_email
from tests.games.playing import current_state, draft_the_top_tile

from .helpers import rig_two_one_tile_columns, seat_user

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture
def lost_forced_takes(lost_tasks):
    """The forced-take task queued after a move never arrives (a Redis flush, a lost message)."""
    return lost_tasks("games.take_last_tile")


def subjects_to(user):
    return [message.subject for message in mail.outbox if message.to == [user.email]]


# --- a turn's deadline -------------------------------------------------------------------------


def test_an_overdue_turn_gets_a_sensible_draft_a_timeout_on_record_and_moves_on(
    clock, start_game, committed
):
    game = start_game(2, time_per_move=HOUR)
    late, next_player = seat_user(game, 0), seat_user(game, 1)
    state = current_state(game)
    sensible = choose_draft(state, 0).tile_id
    mail.outbox.clear()

    clock.advance(HOUR + timedelta(seconds=1))
    committed(tasks.time_out_turn.delay, game.pk, game.version)

    game.refresh_from_db()
    timed_out = list(game.events.filter(cause=Event.Cause.TIMEOUT).order_by("number"))
    assert [(e.kind, e.seat, e.actor) for e in timed_out] == [
        ("draft", 0, None),
        ("confirm_draft", 0, None),
    ]
    assert timed_out[0].action == {"type": "draft", "tile_id": sensible}
    assert current_state(game).trays[0] == (sensible,)
    assert Seat.objects.get(game=game, number=0).timeouts == 1
    assert Seat.objects.get(game=game, number=1).timeouts == 0
    assert game.current_seat == 1
    assert game.deadline == clock.now() + HOUR
    assert game.remind_at == clock.now() + HOUR * 0.8
    assert subjects_to(late) == [f"[Microchip Online] Your time ran out in {game.title}"]
    assert subjects_to(next_player) == [f"[Microchip Online] Your move in {game.title}"]
    tile = rules.TILES[sensible]
    timeout_email = next(m for m in mail.outbox if m.to == [late.email])
    assert f"drafted a {tile.colour} {tile.kind} into your tray" in timeout_email.body


def test_the_sensible_draft_is_not_blindly_the_top_tile(clock, start_game, committed, monkeypatch):
    # A deal where the greedy pick is not the top of the column, found with the rules alone, so
    # the test does not depend on the luck of the draw.
    def greedy_differs(seed):
        state = rules.new_game(2, seed)
        return choose_draft(state, 0).tile_id != state.draw_tiles()[0]

    seed = next(seed for seed in range(1000) if greedy_differs(seed))
    monkeypatch.setattr(actions.tables.secrets, "randbits", lambda bits: seed)
    game = start_game(2, time_per_move=HOUR)
    state = current_state(game)
    clock.advance(HOUR * 2)
    committed(actions.time_out_turn, game_id=game.pk, expected_version=game.version)
    drafted = game.events.get(kind="draft").action["tile_id"]
    assert drafted == choose_draft(state, 0).tile_id
    assert drafted != state.draw_tiles()[0]


def test_a_pending_draft_is_confirmed_when_the_time_runs_out(clock, start_game, committed):
    game = start_game(2, time_per_move=HOUR)
    me = seat_user(game, 0)
    tile = current_state(game).draw_tiles()[2]
    committed(actions.play, game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None)
    game.refresh_from_db()

    clock.advance(HOUR)
    committed(tasks.time_out_turn.delay, game.pk, game.version)

    timed_out = game.events.filter(cause=Event.Cause.TIMEOUT)
    assert [event.kind for event in timed_out] == ["confirm_draft"]
    [told] = [m for m in mail.outbox if "time ran out" in m.subject]
    colour, kind = rules.TILES[tile].colour, rules.TILES[tile].kind
    assert f"the server confirmed your draft of the {colour} {kind}" in told.body
    assert current_state(game).trays[0] == (tile,)
    assert Seat.objects.get(game=game, number=0).timeouts == 1


def test_a_timeout_is_harmless_early_late_twice_stale_or_after_the_player_moved(
    clock, start_game, committed
):
    game = start_game(2, time_per_move=HOUR)
    me = seat_user(game, 0)

    # Early: the deadline has not passed.
    assert actions.time_out_turn(game_id=game.pk, expected_version=game.version) is None
    clock.advance(HOUR * 5)  # and very late
    # Stale: the sweep saw another version.
    assert actions.time_out_turn(game_id=game.pk, expected_version=game.version - 1) is None
    # The player moves after the deadline but before the server did.
    tile = current_state(game).draw_tiles()[0]
    committed(actions.play, game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None)
    committed(
        actions.play, game_id=game.pk, user=me, action=rules.ConfirmDraft(), seen_version=None
    )
    assert actions.time_out_turn(game_id=game.pk, expected_version=game.version) is None
    assert actions.time_out_turn(game_id=game.pk, expected_version=None) is None
    game.refresh_from_db()
    version = game.version

    clock.advance(HOUR)
    first = committed(actions.time_out_turn, game_id=game.pk, expected_version=version)
    again = committed(actions.time_out_turn, game_id=game.pk, expected_version=version)

    assert first is not None and again is None
    assert game.events.filter(cause=Event.Cause.TIMEOUT).count() == 2
    assert list(game.seats.order_by("number").values_list("timeouts", flat=True)) == [0, 1]
    # The finishing-deadline task does nothing to a drafting game.
    game.refresh_from_db()
    assert actions.finish_at_deadline(game_id=game.pk, expected_version=None) is None


# --- forced takes ------------------------------------------------------------------------------


def test_a_forced_take_turn_is_due_at_once_and_the_sweep_takes_it_when_the_task_is_lost(
    clock, start_game, committed, lost_forced_takes
):
    game = start_game(2, time_per_move=HOUR)
    for _ in range(4):  # four drafts leave one tile in the draw column, for seat 0
        draft_the_top_tile(game, committed)
    game.refresh_from_db()
    assert current_state(game).forced_action() is not None
    assert game.deadline == clock.now()
    assert game.remind_at is None
    mail.outbox.clear()

    committed(tasks.sweep)

    forced = game.events.get(kind="take_last")
    assert (forced.cause, forced.seat, forced.actor) == (Event.Cause.FORCED_TAKE, 0, None)
    assert not game.events.filter(cause=Event.Cause.TIMEOUT).exists()
    assert sum(game.seats.values_list("timeouts", flat=True)) == 0
    game.refresh_from_db()
    assert game.current_seat == 1
    assert game.deadline == clock.now() + HOUR
    # Nobody was told it was seat 0's move; seat 1 is told it is theirs.
    assert [m.to for m in mail.outbox] == [[seat_user(game, 1).email]]


def test_two_forced_takes_in_a_row_chain_through_the_task(start_game, committed):
    game = start_game(2)
    rig_two_one_tile_columns(game)

    committed(tasks.take_last_tile.delay, game.pk)

    taken = list(game.events.filter(kind="take_last").order_by("number"))
    assert [(event.seat, event.cause) for event in taken] == [
        (0, Event.Cause.FORCED_TAKE),
        (1, Event.Cause.FORCED_TAKE),
    ]
    state = current_state(game)
    assert state.current == 0
    assert len(state.draw_tiles()) == 5
    assert state.forced_action() is None


def test_two_forced_takes_in_a_row_chain_through_the_sweep_alone(
    clock, start_game, committed, lost_forced_takes
):
    game = start_game(2)
    rig_two_one_tile_columns(game)

    committed(tasks.sweep)
    assert game.events.filter(kind="take_last").count() == 1
    committed(tasks.sweep)  # the second one is due at once too: no need to wait

    assert list(game.events.filter(kind="take_last").values_list("seat", flat=True)) == [0, 1]
    assert current_state(game).forced_action() is None


# --- the finishing deadline --------------------------------------------------------------------


def test_the_finishing_deadline_submits_unfinished_boards_with_illegal_tiles_returned(
    clock, start_game, committed
):
    game = start_game(2, time_per_move=HOUR)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    game.refresh_from_db()
    assert game.deadline == clock.now() + HOUR
    slow, quick = seat_user(game, 0), seat_user(game, 1)
    state = current_state(game)
    tile = state.trays[0][0]
    wrong = next(
        space
        for space, colour in enumerate(state.boards[0].colours)
        if colour != rules.TILES[tile].colour
    )
    committed(
        actions.play, game_id=game.pk, user=slow, action=rules.Place(tile, wrong), seen_version=None
    )
    committed(actions.play, game_id=game.pk, user=quick, action=rules.Finish(), seen_version=None)
    game.refresh_from_db()
    mail.outbox.clear()

    clock.advance(HOUR - timedelta(seconds=1))
    assert committed(tasks.sweep)["overdue"] == 0
    clock.advance(timedelta(seconds=1))
    committed(tasks.sweep)

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    submitted = list(game.events.filter(cause=Event.Cause.DEADLINE).order_by("number"))
    assert [(event.kind, event.seat) for event in submitted] == [("return", 0), ("finish", 0)]
    final = current_state(game)
    assert tile in final.trays[0] and final.boards[0].tile_count == 0
    assert list(game.seats.order_by("number").values_list("timeouts", flat=True)) == [1, 0]
    for seat in game.seats.all():
        assert seat.place is not None and seat.score is not None
    assert [m.to for m in mail.outbox if "running out" in m.subject] == [[slow.email]]
    over = [m for m in mail.outbox if "is over" in m.subject]
    late_email = next(m for m in over if m.to == [slow.email])
    assert "Your finishing time ran out" in late_email.body
    quick_email = next(m for m in over if m.to == [quick.email])
    assert "finishing time ran out" not in quick_email.body


# --- reminders ---------------------------------------------------------------------------------


def test_a_reminder_goes_once_a_turn_when_a_fifth_of_the_time_is_left(clock, start_game, committed):
    game = start_game(2, time_per_move=HOUR)
    first, second = seat_user(game, 0), seat_user(game, 1)
    mail.outbox.clear()

    clock.advance(timedelta(minutes=47))
    committed(tasks.sweep)
    assert mail.outbox == []
    clock.advance(timedelta(minutes=1))  # 12 minutes, a fifth of the hour, are left
    committed(tasks.sweep)
    committed(tasks.sweep)
    clock.advance(timedelta(minutes=5))
    committed(tasks.sweep)

    assert subjects_to(first) == [
        f"[Microchip Online] Time is running out for your move in {game.title}"
    ]
    assert "About 12\xa0minutes left" in mail.outbox[0].body
    game.refresh_from_db()
    assert game.remind_at is None
    assert game.events.count() == game.version  # the reminder is not a move: no event

    # The second player moves before their reminder time: they get none.
    draft_the_top_tile(game, committed)
    clock.advance(timedelta(minutes=40))
    draft_the_top_tile(game, committed)
    clock.advance(timedelta(minutes=30))
    committed(tasks.sweep)
    assert not any("running out" in subject for subject in subjects_to(second))
    assert len([s for s in subjects_to(first) if "running out" in s]) == 1


def test_a_reminder_in_the_finishing_phase_goes_to_the_unfinished_only(
    clock, start_game, committed
):
    game = start_game(2, time_per_move=HOUR)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    committed(
        actions.play,
        game_id=game.pk,
        user=seat_user(game, 1),
        action=rules.Finish(),
        seen_version=None,
    )
    mail.outbox.clear()

    clock.advance(timedelta(minutes=50))
    committed(tasks.sweep)

    assert [m.to for m in mail.outbox] == [[seat_user(game, 0).email]]
    assert "finish your board" in mail.outbox[0].subject


# --- the sweep ---------------------------------------------------------------------------------


def test_the_sweep_works_in_bounded_batches_oldest_first(clock, start_game, committed, monkeypatch):
    games = []
    for _ in range(3):
        games.append(start_game(2, time_per_move=HOUR))
        clock.advance(timedelta(minutes=1))
    monkeypatch.setattr(turn_clock, "SWEEP_BATCH", 2)
    clock.advance(HOUR * 2)

    assert committed(tasks.sweep)["overdue"] == 2
    timed_out = [g.events.filter(cause=Event.Cause.TIMEOUT).exists() for g in games]
    assert timed_out == [True, True, False]
    committed(tasks.sweep)
    assert games[2].events.filter(cause=Event.Cause.TIMEOUT).exists()


@pytest.mark.parametrize("computer_players, queries", [(False, 8), (True, 9)])
def test_a_quiet_sweep_costs_eight_or_nine_indexed_queries(
    clock, start_game, django_assert_num_queries, computer_players, queries
):
    start_game(2, time_per_move=HOUR)
    # The migrations make the computer players, but a test that empties the database drops them.
    bots = User.objects.filter(bot_level__isnull=False)
    if not computer_players:
        bots.delete()
    elif not bots.exists():
        new_bot("easy")
    # Overdue turns, reminders, stalled bots (the computer players, and when there are some
    # their seats; the seats of players who left), vacations over, games not analysed or not
    # reviewed, emails not sent.
    with django_assert_num_queries(queries):
        assert tasks.sweep() == {
            "overdue": 0,
            "reminders": 0,
            "bots": 0,
            "vacations": 0,
            "analyses": 0,
            "reviews": 0,
            "emails": 0,
        }


def an_email_about(game):
    """An email of the game still to send (a task for it waits in the queue)."""
    return OutboxEmail.objects.create(
        kind="your_turn", user=seat_user(game, 0), game_id=game.pk, version=1, message_id="<a@b>"
    )


# --- a game deleted after its work was queued ---------------------------------------------------


@pytest.mark.parametrize(
    "task, arguments",
    [
        (tasks.take_last_tile, lambda game: (game.pk,)),
        (tasks.time_out_turn, lambda game: (game.pk, game.version)),
        (tasks.finish_at_deadline, lambda game: (game.pk, game.version)),
        (tasks.remind_players, lambda game: (game.pk,)),
        (send_email, lambda game: (an_email_about(game).pk,)),
        (tasks.analyse_game, lambda game: (game.pk,)),
    ],
    ids=lambda value: getattr(value, "name", ""),
)
def test_the_work_of_a_game_deleted_since_it_was_queued_is_not_due(
    task, arguments, clock, start_game
):
    # An operator deleted the game (or a benchmark its own) while its tasks waited in the queue.
    game = start_game(2, time_per_move=HOUR)
    queued = arguments(game)
    Game.objects.filter(pk=game.pk).update(remind_at=clock.now())
    game.delete()
    clock.advance(HOUR * 2)
    mail.outbox.clear()

    task.apply(queued).get()  # raises what the task raised

    assert not Game.objects.exists() and not Event.objects.exists()
    assert mail.outbox == []
