"""Vacations on a simulated clock: a player's clocks stop in every game they play, the sweep
never times them out, a forced take still happens for them, and the vacation ends by itself or
with their own move."""

from datetime import timedelta

import pytest
from django.core import mail

from accounts import vacations as days
from accounts.models import User
from games import rules, tasks
from games.drawing.view import game_view
from games.models import Event, Game, Seat
from games.play import actions, vacations
from games.play.errors import ActionRefused
from tests.games.playing import current_state, draft_the_top_tile

pytestmark = pytest.mark.django_db

HOUR, DAY = timedelta(hours=1), timedelta(days=1)


@pytest.fixture
def in_join_order(monkeypatch):
    """The players sit in the order they joined (seat 0: the creator), not in a drawn order."""
    monkeypatch.setattr(
        actions.tables.rules, "seat_order", lambda players, seed: tuple(range(players))
    )


@pytest.fixture
def three_games(start_game, committed, in_join_order, players):
    """Ada's games: in the first it is her move, in the second Brian's, and the third is in its
    finishing phase, with Brian finished and Ada not."""
    _ada, brian = players[:2]
    mine = start_game(2, time_per_move=DAY)
    theirs = start_game(2, time_per_move=DAY)
    draft_the_top_tile(theirs, committed)
    finishing = start_game(2, time_per_move=DAY)
    while current_state(finishing).phase == rules.DRAFTING:
        draft_the_top_tile(finishing, committed)
    committed(
        actions.play, game_id=finishing.pk, user=brian, action=rules.Finish(), seen_version=None
    )
    for game in (mine, theirs, finishing):
        game.refresh_from_db()
    return mine, theirs, finishing


def fresh(game):
    game.refresh_from_db()
    return game


def ada_of(players) -> User:
    return User.objects.get(pk=players[0].pk)


def test_a_vacation_stops_the_players_clock_in_every_game_and_the_others_see_it(
    clock, three_games, players, committed
):
    mine, theirs, finishing = three_games
    ada = players[0]
    started = clock.now()
    their_deadline = theirs.deadline
    versions = [game.version for game in three_games]
    clock.advance(HOUR * 6)

    committed(vacations.start_vacation, user_id=ada.pk, length=DAY * 3)
    back = started + HOUR * 6 + DAY * 3

    # Her turn resumes when she is back, with the 18 hours she had left; its reminder with it.
    assert fresh(mine).deadline == back + HOUR * 18
    assert mine.remind_at == back + HOUR * 18 - DAY * 0.2
    # Her finishing time too; the game's deadline is hers, the earliest of the unfinished.
    seat = Seat.objects.get(game=finishing, user=ada)
    assert seat.deadline == back + HOUR * 18 == fresh(finishing).deadline
    # Brian's turn is not hers: his clock runs on.
    assert fresh(theirs).deadline == their_deadline
    # Every game of hers moved on by one version, so that every page shows her away.
    assert [game.version for game in three_games] == [version + 1 for version in versions]
    for game in three_games:
        event = game.events.get(number=game.version)
        assert (event.kind, event.actor_id) == ("vacation", ada.pk)
        view = game_view(game, players[1])
        assert view.seats[0].vacation_until == back
    assert game_view(mine, players[1]).seats[0].clock.stopped_for == "vacation"

    # The sweep does not time her out while she is away, not even past her old deadlines; the
    # game where Brian was to move goes on without her, and its next turn, hers, waits too.
    clock.advance(DAY * 2)
    committed(tasks.sweep)
    timed_out = Event.objects.filter(cause__in=[Event.Cause.TIMEOUT, Event.Cause.DEADLINE])
    assert {(event.game_id, event.seat) for event in timed_out} == {(theirs.pk, 1)}
    assert fresh(theirs).current_seat == 0
    assert theirs.deadline == back + DAY


def test_a_vacation_ends_by_itself_through_the_sweep_and_its_days_are_charged(
    clock, three_games, players, committed
):
    mine = three_games[0]
    ada = players[0]
    committed(vacations.start_vacation, user_id=ada.pk, length=DAY * 2)
    back = clock.now() + DAY * 2
    version = fresh(mine).version

    clock.to(back + timedelta(minutes=1))
    assert committed(tasks.sweep)["vacations"] == 1

    ada = ada_of(players)
    assert ada.vacation_until is None
    assert days.days_left(ada, clock.now()) == DAY * 28 + timedelta(minutes=1) * 30 / 365
    assert fresh(mine).version == version + 1
    assert mine.events.get(number=mine.version).kind == "vacation_ended"
    assert game_view(mine, players[1]).seats[0].vacation_until is None
    assert committed(tasks.sweep)["vacations"] == 0  # once

    # Her clock runs again where it stopped: a day left, and then she times out.
    assert mine.deadline == back + DAY
    clock.to(mine.deadline)
    committed(tasks.sweep)
    assert Seat.objects.get(game=mine, user=ada).timeouts == 1


def test_the_players_own_move_ends_their_vacation_in_every_game(
    clock, three_games, players, committed
):
    mine, _theirs, finishing = three_games
    ada = players[0]
    committed(vacations.start_vacation, user_id=ada.pk, length=DAY * 5)
    clock.advance(DAY)

    # She arranges her board in the game where the others finished their drafting.
    tile = current_state(finishing).trays[0][0]
    space = next(
        index
        for index, colour in enumerate(current_state(finishing).boards[0].colours)
        if colour == rules.TILES[tile].colour
    )
    committed(
        actions.play,
        game_id=finishing.pk,
        user=ada,
        action=rules.Place(tile, space),
        seen_version=None,
    )

    ada = ada_of(players)
    assert not days.on_vacation(ada, clock.now())
    assert abs(days.days_left(ada, clock.now()) - DAY * 29) < timedelta(seconds=1)
    # Her clocks run again from now, with the day she had left in each.
    assert fresh(mine).deadline == clock.now() + DAY
    assert fresh(finishing).deadline == clock.now() + DAY
    assert finishing.events.get(number=finishing.version).kind == "vacation_ended"


def test_a_forced_take_still_happens_for_a_player_on_vacation_and_the_turn_passes(
    clock, start_game, committed, lost_tasks, in_join_order, players
):
    lost_tasks("games.take_last_tile")  # only the sweep takes it
    game = start_game(2, time_per_move=HOUR)
    for _ in range(3):
        draft_the_top_tile(game, committed)
    committed(vacations.start_vacation, user_id=players[0].pk, length=DAY)
    draft_the_top_tile(game, committed)  # Brian's: Ada's turn begins with a forced take
    assert current_state(game).forced_action() is not None

    committed(tasks.sweep)

    taken = fresh(game).events.get(kind="take_last")
    assert (taken.seat, taken.cause) == (0, Event.Cause.FORCED_TAKE)
    assert game.current_seat == 1 and game.deadline == clock.now() + HOUR
    assert days.on_vacation(ada_of(players), clock.now())  # the server's move is not hers


def test_the_sweep_does_not_time_out_a_player_whose_vacation_began_as_it_found_the_turn(
    clock, start_game, committed, in_join_order, players
):
    game = start_game(2, time_per_move=HOUR)
    clock.advance(HOUR / 2)
    # Her vacation is on her row, but her game has not been told yet (its own change comes
    # next): the timeout that the sweep queued runs first.
    ada = ada_of(players)
    days.begin(ada, clock.now(), DAY)
    ada.save()
    clock.advance(HOUR)

    assert committed(actions.time_out_turn, game_id=game.pk, expected_version=game.version) is None

    assert fresh(game).deadline == ada.vacation_until + HOUR / 2
    assert not game.events.filter(cause=Event.Cause.TIMEOUT).exists()


def test_a_turn_that_ran_out_before_the_vacation_began_times_out_all_the_same(
    clock, start_game, committed, in_join_order, players
):
    game = start_game(2, time_per_move=HOUR)
    clock.advance(HOUR * 2)  # late, and the sweep has not come yet
    committed(vacations.start_vacation, user_id=players[0].pk, length=DAY)

    committed(tasks.sweep)

    assert Seat.objects.get(game=game, number=0).timeouts == 1


def test_a_finishing_phase_waits_for_the_player_on_vacation_and_not_for_the_others(
    clock, start_game, committed, in_join_order, players
):
    game = start_game(2, time_per_move=HOUR)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    committed(vacations.start_vacation, user_id=players[0].pk, length=DAY)
    mail.outbox.clear()

    clock.advance(HOUR)  # Brian's finishing time runs out; Ada's waits for her return
    committed(tasks.sweep)
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert list(game.events.filter(cause=Event.Cause.DEADLINE).values_list("seat", "kind")) == [
        (1, "finish")
    ]
    # Her reminder moved with the pause: none went out.
    assert not [m for m in mail.outbox if "running out" in m.subject and m.to == [players[0].email]]

    clock.advance(DAY - timedelta(minutes=1))  # back for 59 minutes, of the hour she had
    assert committed(tasks.sweep)["vacations"] == 1
    assert fresh(game).status == Game.Status.PLAYING
    clock.advance(timedelta(minutes=1))
    committed(tasks.sweep)
    assert fresh(game).status == Game.Status.ENDED


def test_a_vacation_lasts_at_most_the_days_left(clock, players):
    ada = players[0]
    with pytest.raises(ActionRefused, match="30 days of vacation left"):
        vacations.start_vacation(user_id=ada.pk, length=DAY * 31)
    vacations.start_vacation(user_id=ada.pk, length=DAY * 10)
    with pytest.raises(ActionRefused, match="on vacation already"):
        vacations.start_vacation(user_id=ada.pk, length=DAY)
    clock.advance(DAY * 4)
    vacations.end_vacation(user_id=ada.pk)
    assert vacations.end_vacation(user_id=ada.pk) is None  # nothing to end
    with pytest.raises(ActionRefused, match="26 days of vacation left"):
        vacations.start_vacation(user_id=ada.pk, length=DAY * 27)


def test_a_vacation_is_told_by_the_name_not_in_the_move_log(clock, start_game, players):
    game = start_game(2)
    vacations.start_vacation(user_id=players[0].pk, length=DAY)
    vacations.end_vacation(user_id=players[0].pk)

    log = game_view(fresh(game), players[1]).log
    assert [entry.kind for entry in log.entries if "vacation" in entry.kind] == []


def test_at_the_finish_the_sweep_submits_the_late_board_and_not_the_one_on_vacation(
    clock, start_game, committed, in_join_order, players
):
    game = start_game(2, time_per_move=HOUR)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    clock.advance(HOUR / 2)
    # Ada's vacation is on her row, but her game has not been told yet when both finishing
    # times run out: Brian's board is due, hers waits for her.
    ada = ada_of(players)
    days.begin(ada, clock.now(), DAY)
    ada.save()
    clock.advance(HOUR)

    committed(tasks.sweep)

    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert list(game.events.filter(cause=Event.Cause.DEADLINE).values_list("seat", "kind")) == [
        (1, "finish")
    ]
    assert Seat.objects.get(game=game, number=0).deadline == ada.vacation_until + HOUR / 2
    assert game.deadline == ada.vacation_until + HOUR / 2
