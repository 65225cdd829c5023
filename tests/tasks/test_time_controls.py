"""Time controls on a simulated clock: a Fischer bank spent, topped up and capped, its timeout;
the finishing phase's own time; weekends off in each player's own time zone."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from games import rules, tasks
from games.models import Event, Game, Seat
from games.play import actions
from games.play.errors import ActionRefused
from tests.games.playing import current_state, draft_the_top_tile

from .helpers import seat_user

pytestmark = pytest.mark.django_db

HOUR, DAY = timedelta(hours=1), timedelta(days=1)
MADRID, NEW_YORK = ZoneInfo("Europe/Madrid"), ZoneInfo("America/New_York")


@pytest.fixture
def in_join_order(monkeypatch):
    """The players sit in the order they joined (seat 0: the creator), not in a drawn order."""
    monkeypatch.setattr(
        actions.tables.rules, "seat_order", lambda players, seed: tuple(range(players))
    )


def banks(game) -> list:
    return list(game.seats.order_by("number").values_list("bank", flat=True))


def fischer(**times):
    return {"clock": Game.Clock.FISCHER, **times}


# --- Fischer -----------------------------------------------------------------------------------


def test_a_fischer_bank_is_spent_while_drafting_and_grows_by_the_increment_up_to_the_cap(
    clock, start_game, committed
):
    game = start_game(2, **fischer(fischer_bank=DAY, fischer_increment=DAY, fischer_cap=DAY * 2))
    assert banks(game) == [DAY, DAY]
    assert game.deadline == clock.now() + DAY
    # Reminded when a fifth of the bank is left (less than a day).
    assert game.remind_at == clock.now() + DAY * 0.8

    draft_the_top_tile(game, committed)  # at once: 1 day left, +1 day
    clock.advance(HOUR * 6)
    draft_the_top_tile(game, committed)  # after 6 hours: 18 hours left, +1 day
    game.refresh_from_db()
    assert banks(game) == [DAY * 2, HOUR * 42]
    assert game.deadline == clock.now() + DAY * 2  # seat 0's turn: its whole bank

    draft_the_top_tile(game, committed)  # at once again: 2 days + 1, capped at 2
    game.refresh_from_db()
    assert banks(game) == [DAY * 2, HOUR * 42]
    assert game.deadline == clock.now() + HOUR * 42
    assert game.remind_at == clock.now() + HOUR * 42 * 0.8


def test_a_full_bank_is_reminded_a_day_before_it_runs_out(clock, start_game):
    game = start_game(
        2, **fischer(fischer_bank=DAY * 7, fischer_increment=DAY, fischer_cap=DAY * 14)
    )
    assert game.deadline == clock.now() + DAY * 7
    assert game.remind_at == clock.now() + DAY * 6  # a fifth of the bank would be 1.4 days


def test_an_empty_bank_is_a_timeout_and_the_increment_lets_the_player_come_back(
    clock, start_game, committed
):
    game = start_game(2, **fischer(fischer_bank=DAY, fischer_increment=HOUR * 3, fischer_cap=DAY))
    late = seat_user(game, 0)

    clock.advance(DAY - timedelta(seconds=1))
    assert committed(tasks.sweep)["overdue"] == 0
    clock.advance(timedelta(seconds=1))
    committed(tasks.sweep)

    game.refresh_from_db()
    timed_out = game.events.filter(cause=Event.Cause.TIMEOUT)
    assert [event.kind for event in timed_out] == ["draft", "confirm_draft"]
    assert Seat.objects.get(game=game, user=late).timeouts == 1
    assert banks(game) == [HOUR * 3, DAY]  # nothing left, plus the increment
    assert game.current_seat == 1 and game.deadline == clock.now() + DAY


def test_a_forced_take_neither_spends_nor_adds_to_a_bank(clock, start_game, committed):
    game = start_game(2, **fischer(fischer_bank=DAY, fischer_increment=HOUR, fischer_cap=DAY * 2))
    for _ in range(3):  # at once: seat 0 twice, seat 1 once, each +1 hour
        draft_the_top_tile(game, committed)
    clock.advance(HOUR * 2)
    draft_the_top_tile(game, committed)  # seat 1, after 2 hours; seat 0's forced take follows

    game.refresh_from_db()
    assert game.events.filter(kind="take_last", seat=0).exists()
    assert banks(game) == [DAY + HOUR * 2, DAY]  # seat 0's stays as it was
    assert game.current_seat == 1 and game.deadline == clock.now() + DAY


def test_a_fischer_clock_is_checked_when_the_game_is_created(players):
    with pytest.raises(ActionRefused, match="cap"):
        actions.create_game(
            creator=players[0],
            player_count=2,
            **fischer(fischer_bank=DAY * 3, fischer_increment=DAY, fischer_cap=DAY * 2),
        )
    with pytest.raises(ActionRefused, match="Fischer clock needs"):
        actions.create_game(creator=players[0], player_count=2, **fischer(fischer_bank=DAY))
    with pytest.raises(ActionRefused, match="finishing time"):
        actions.create_game(
            creator=players[0], player_count=2, time_per_move=DAY, finishing_time=DAY * 20
        )


# --- the finishing phase -----------------------------------------------------------------------


def play_to_the_finishing_phase(game, committed, clock=None, at=None):
    """Draft the top tile turn after turn until the pool is empty; the last draft (followed by
    the forced take of the last tile, which begins the finishing phase) at `at`."""
    while sum(len(column) for column in current_state(game).columns) > 2:
        draft_the_top_tile(game, committed)
    if at is not None:
        clock.to(at)
    draft_the_top_tile(game, committed)
    game.refresh_from_db()
    assert game.phase == rules.FINISHING


def test_the_finishing_phase_has_its_own_time_for_everyone(clock, start_game, committed):
    game = start_game(2, time_per_move=HOUR, finishing_time=HOUR * 3)
    play_to_the_finishing_phase(game, committed)
    began = clock.now()
    seats = list(game.seats.order_by("number"))
    assert [(seat.deadline, seat.remind_at) for seat in seats] == [
        (began + HOUR * 3, began + HOUR * 3 * 0.8)
    ] * 2
    assert (game.deadline, game.remind_at) == (began + HOUR * 3, began + HOUR * 3 * 0.8)

    committed(
        actions.play, game_id=game.pk, user=seats[1].user, action=rules.Finish(), seen_version=None
    )
    assert Seat.objects.get(pk=seats[1].pk).deadline is None
    clock.advance(HOUR * 3 - timedelta(seconds=1))
    assert committed(tasks.sweep)["overdue"] == 0
    clock.advance(timedelta(seconds=1))
    committed(tasks.sweep)

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert game.events.filter(kind="finish", cause=Event.Cause.DEADLINE, seat=0).exists()


def test_a_fischer_table_finishes_in_its_starting_bank_unless_it_says_otherwise(
    clock, start_game, committed
):
    game = start_game(
        2, **fischer(fischer_bank=DAY * 2, fischer_increment=HOUR, fischer_cap=DAY * 3)
    )
    assert game.finishing_period == DAY * 2
    play_to_the_finishing_phase(game, committed)
    assert game.deadline == clock.now() + DAY * 2


# --- weekends off ------------------------------------------------------------------------------


@pytest.fixture
def madrid_and_new_york(players):
    """Ada plays from Madrid, Brian from New York."""
    for player, zone in zip(players, ("Europe/Madrid", "America/New_York"), strict=False):
        player.time_zone = zone
        player.save(update_fields=["time_zone"])
    return players[:2]


def test_weekends_off_stop_each_players_clock_on_their_own_saturday_and_sunday(
    clock, start_game, committed, madrid_and_new_york, in_join_order
):
    ada = madrid_and_new_york[0]
    clock.to(datetime(2025, 1, 10, 20, tzinfo=MADRID))  # a Friday evening
    game = start_game(2, time_per_move=HOUR * 6, weekends_off=True)
    assert seat_user(game, 0) == ada

    # Four hours to Madrid's Saturday, two on Monday; the reminder at 4.8 hours of counting.
    assert game.deadline == datetime(2025, 1, 13, 2, tzinfo=MADRID)
    assert game.remind_at == datetime(2025, 1, 13, 0, 48, tzinfo=MADRID)
    clock.to(datetime(2025, 1, 13, 2, tzinfo=MADRID) - timedelta(seconds=1))
    assert committed(tasks.sweep)["overdue"] == 0
    clock.advance(timedelta(seconds=1))
    committed(tasks.sweep)

    game.refresh_from_db()
    assert Seat.objects.get(game=game, user=ada).timeouts == 1
    # Monday 02:00 in Madrid is still Sunday in New York: Brian's six hours start at his Monday.
    assert game.current_seat == 1
    assert game.deadline == datetime(2025, 1, 13, 6, tzinfo=NEW_YORK)


def test_at_the_finish_each_player_has_their_own_weekend(
    clock, start_game, committed, madrid_and_new_york, in_join_order
):
    ada, brian = madrid_and_new_york
    game = start_game(2, time_per_move=HOUR, finishing_time=HOUR * 4, weekends_off=True)
    clock.to(datetime(2025, 1, 6, 9, tzinfo=MADRID))  # the drafts on a Monday
    play_to_the_finishing_phase(game, committed, clock, datetime(2025, 1, 10, 22, tzinfo=MADRID))

    madrid_end = datetime(2025, 1, 13, 2, tzinfo=MADRID)  # two hours on Friday, two on Monday
    new_york_end = datetime(2025, 1, 10, 20, tzinfo=NEW_YORK)  # Friday 16:00 to 20:00 there
    seats = {seat.user: seat for seat in game.seats.all()}
    assert (seats[ada].deadline, seats[brian].deadline) == (madrid_end, new_york_end)
    assert game.deadline == new_york_end

    clock.to(new_york_end)
    committed(tasks.sweep)
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING  # only Brian's board was due
    assert [(e.seat, e.kind) for e in game.events.filter(cause=Event.Cause.DEADLINE)] == [
        (1, "finish")
    ]
    assert game.deadline == madrid_end

    clock.to(madrid_end)
    committed(tasks.sweep)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert list(game.seats.order_by("number").values_list("timeouts", flat=True)) == [1, 1]
