"""Two requests racing on one game: exactly one wins, the other is told the game moved on."""

import datetime
import threading
import time

import pytest
from django.db import connection

from games import rules
from games.models import Game
from games.play import actions, applying
from games.play.errors import ActionRefused

from .playing import current_state

pytestmark = pytest.mark.django_db(transaction=True)


def race(*calls):
    """Run the calls at the same moment in threads; return what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as error:  # the outcome under test
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_two_drafts_of_the_same_tile_one_wins_and_one_is_refused(start_game):
    game = start_game(2)
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]

    def draft():
        return actions.play(
            game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=game.version
        )

    outcomes = race(draft, draft)

    refused = [outcome for outcome in outcomes if isinstance(outcome, ActionRefused)]
    accepted = [outcome for outcome in outcomes if isinstance(outcome, actions.Played)]
    assert len(accepted) == 1, outcomes
    assert len(refused) == 1, outcomes
    assert refused[0].code == "stale"
    state = current_state(game)
    assert state.trays[0] == (tile,)
    assert game.events.filter(kind="draft").count() == 1


def test_two_tabs_drafting_different_tiles_take_only_one(start_game):
    game = start_game(3)
    me = game.seats.get(number=0).user
    first, second = current_state(game).draw_tiles()[:2]

    outcomes = race(
        lambda: actions.play(
            game_id=game.pk, user=me, action=rules.Draft(first), seen_version=game.version
        ),
        lambda: actions.play(
            game_id=game.pk, user=me, action=rules.Draft(second), seen_version=game.version
        ),
    )

    assert sum(isinstance(outcome, actions.Played) for outcome in outcomes) == 1, outcomes
    assert len(current_state(game).trays[0]) == 1
    game.refresh_from_db()
    assert list(game.events.values_list("number", flat=True)) == list(range(1, game.version + 1))


def test_a_move_that_waited_for_another_tabs_move_sees_the_board_it_left(start_game, monkeypatch):
    """A change reads the locked game and its seats in one statement (games/state_store.py
    `lock_game_and_seats`). A move of one tab that waits for the other tab's move of the same
    player must then see the board as that move left it, and be refused as stale, not
    overwrite it: on PostgreSQL this is the seat rows locked too (`FOR UPDATE OF` both), whose
    newest version the waiting read gets."""
    game = start_game(2)
    seat = current_state(game).current
    user = game.seats.get(number=seat).user
    state = current_state(game)
    # A tile with two spaces to go to (the deal's: some tiles have one, on an empty board).
    drafted = next(
        tile
        for tile in state.draw_tiles()
        if len(dict(rules.legal_spots(state.boards[seat], tile))) >= 2
    )
    for action in (rules.Draft(drafted), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    state = current_state(game)
    game.refresh_from_db()
    (tile,) = state.trays[seat]
    spots = dict(rules.legal_spots(state.boards[seat], tile))  # a rotation for each space
    (a, rotation_a), (b, rotation_b) = list(spots.items())[:2]

    def place(space, rotation):
        action = rules.Place(tile, space, rotation)
        return actions.play(game_id=game.pk, user=user, action=action, seen_version=game.version)

    outcomes = one_waits_for_the_other(
        monkeypatch, lambda: place(a, rotation_a), lambda: place(b, rotation_b)
    )

    assert isinstance(outcomes["first"], actions.Played), outcomes
    assert isinstance(outcomes["second"], ActionRefused), outcomes
    assert outcomes["second"].code == "stale"
    board = current_state(game).boards[seat]
    assert board.cells[a] is not None and board.cells[b] is None
    assert game.events.filter(kind="place").count() == 1


def test_a_change_that_waited_for_the_last_join_sees_every_seat(players, start_game, monkeypatch):
    """The seat a change waited for is inserted after the waiting read began: it must read the
    seats again (games/state_store.py `lock_game_and_seats`), or a started game of three would
    be read with two seats."""
    game = actions.create_game(
        creator=players[0], player_count=3, time_per_move=datetime.timedelta(days=1)
    )
    actions.join_game(game_id=game.pk, user=players[1])

    outcomes = one_waits_for_the_other(
        monkeypatch,
        lambda: actions.join_game(game_id=game.pk, user=players[2]),  # the game starts
        lambda: actions.take_last_tile(game_id=game.pk),  # reads the state: none is due
    )

    assert isinstance(outcomes["first"], Game), outcomes
    assert outcomes["second"] is None, outcomes
    game.refresh_from_db()
    assert game.is_playing and game.seats.count() == 3


def one_waits_for_the_other(monkeypatch, first, second) -> dict:
    """Run `first` in a thread until its change has written its rows (its transaction still
    open), then `second` in another, which waits for the first's lock; then let the first
    commit. Return what each returned or raised, by name."""
    held, release = threading.Event(), threading.Event()
    real = applying.send_after_commit

    def hold_first(table):
        if threading.current_thread().name == "first":
            held.set()
            release.wait(10)
        real(table)

    monkeypatch.setattr(applying, "send_after_commit", hold_first)
    outcomes = {}

    def run(name, call):
        try:
            outcomes[name] = call()
        except Exception as error:  # the outcome under test
            outcomes[name] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(name, call), name=name)
        for name, call in (("first", first), ("second", second))
    ]
    threads[0].start()
    assert held.wait(10)
    threads[1].start()
    _until_one_waits_for_a_lock()
    release.set()
    for thread in threads:
        thread.join(30)
    return outcomes


def _until_one_waits_for_a_lock():
    """Wait until another connection waits for a row lock (PostgreSQL), or a moment (SQLite,
    whose waiting transaction is not visible: its IMMEDIATE BEGIN waits for the database)."""
    if connection.vendor != "postgresql":
        time.sleep(0.5)
        return
    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("the second move never waited for the first")
