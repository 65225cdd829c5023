"""Undo and Redo of arranging: each seat steps back and forward through its own changes to its
board and tray since its tiles last changed (a draft, a forced take, an undone draft, Finish)."""

from dataclasses import replace

import pytest

from games.rules import (
    MAX_UNDO,
    Clear,
    ConfirmDraft,
    Draft,
    Finish,
    GameState,
    Move,
    Place,
    Redo,
    Return,
    Rotate,
    RuleError,
    Swap,
    Undo,
    UndoDraft,
    new_game,
    replay,
)

from .test_state import refused, to_finishing, turn


@pytest.fixture
def game():
    """A 3-player game a few turns in: every seat holds two tiles in its tray."""
    state = new_game(3, 77)
    for _ in range(6):
        state = turn(state)
    assert all(len(tray) == 2 for tray in state.trays)
    return state


def arrangement(state, seat):
    return state.boards[seat].cells, state.trays[seat]


def test_undo_steps_back_each_arranging_change_and_redo_forward(game):
    seat = game.current
    a, b = game.trays[seat]
    steps = [Place(a, 6, 0), Place(b, 7, 1), Rotate(6, 2), Move(7, 12), Swap(6, 12), Return(6),
             Clear()]  # fmt: skip
    states = [game]
    for action in steps:
        states.append(states[-1].apply(action, seat))
    state = states[-1]
    assert state.undo_of(seat) and not state.redo_of(seat)
    # Back through every step, exactly: the tray in its order, each tile with its rotation.
    for expected in reversed(states[:-1]):
        state = state.apply(Undo(), seat)
        assert arrangement(state, seat) == arrangement(expected, seat)
    refused(state, Undo(), seat, "nothing_to_undo")
    # And forward again to the last.
    for expected in states[1:]:
        state = state.apply(Redo(), seat)
        assert arrangement(state, seat) == arrangement(expected, seat)
    refused(state, Redo(), seat, "nothing_to_redo")
    assert state.boards == states[-1].boards and state.trays == states[-1].trays


def test_a_new_change_after_undo_forgets_what_was_undone(game):
    seat = game.current
    a, b = game.trays[seat]
    state = game.apply(Place(a, 0, 0), seat).apply(Place(b, 1, 0), seat).apply(Undo(), seat)
    assert len(state.redo_of(seat)) == 1
    state = state.apply(Rotate(0), seat)
    assert state.redo_of(seat) == ()
    refused(state, Redo(), seat, "nothing_to_redo")
    assert len(state.undo_of(seat)) == 2  # the first placement, then the rotation


def test_each_seat_has_its_own_history(game):
    me, other = 0, 1
    mine, theirs = game.trays[me][0], game.trays[other][0]
    state = game.apply(Place(mine, 0, 0), me).apply(Place(theirs, 3, 0), other)
    state = state.apply(Undo(), me)
    assert state.boards[me].cells[0] is None
    assert state.boards[other].cells[3] is not None  # the other's board is theirs to undo
    refused(state, Undo(), me, "nothing_to_undo")
    assert state.apply(Undo(), other).boards[other].cells[3] is None


def test_a_draft_starts_the_drafters_history_anew_but_not_the_others(game):
    drafter = game.current
    other = (drafter + 1) % 3
    state = game.apply(Place(game.trays[drafter][0], 0, 0), drafter)
    state = state.apply(Place(game.trays[other][0], 0, 0), other)
    state = state.apply(Draft(state.draw_tiles()[0]), drafter)
    assert state.undo_of(drafter) == ()
    refused(state, Undo(), drafter, "nothing_to_undo")
    assert len(state.undo_of(other)) == 1
    # Arranging the drafted tile can be undone; confirming the draft keeps that history.
    pending = state.pending.tile_id
    state = state.apply(Place(pending, 24, 0), drafter).apply(ConfirmDraft(), drafter)
    assert len(state.undo_of(drafter)) == 1
    assert state.apply(Undo(), drafter).trays[drafter][-1] == pending


def test_an_undone_draft_forgets_the_history_that_held_its_tile(game):
    drafter = game.current
    state = game.apply(Draft(game.draw_tiles()[0]), drafter)
    state = state.apply(Place(state.pending.tile_id, 12, 0), drafter).apply(UndoDraft(), drafter)
    assert state.undo_of(drafter) == () and state.redo_of(drafter) == ()
    refused(state, Undo(), drafter, "nothing_to_undo")


def test_clearing_an_empty_board_is_nothing_to_undo(game):
    seat = game.current
    state = game.apply(Clear(), seat)
    refused(state, Undo(), seat, "nothing_to_undo")


def test_finish_ends_the_history_and_a_finished_board_cannot_undo():
    state = to_finishing(new_game(2, 5))
    tile = state.trays[0][0]
    state = state.apply(Place(tile, 0, 0), 0).apply(Return(0), 0).apply(Finish(), 0)
    assert state.undo_of(0) == ()
    refused(state, Undo(), 0, "board_finished")


def test_the_history_is_capped(game):
    seat = game.current
    state = game.apply(Place(game.trays[seat][0], 12, 0), seat)
    for _ in range(MAX_UNDO + 10):
        state = state.apply(Rotate(12), seat)
    assert len(state.undo_of(seat)) == MAX_UNDO
    for _ in range(MAX_UNDO):
        state = state.apply(Undo(), seat)
    refused(state, Undo(), seat, "nothing_to_undo")
    assert state.boards[seat].cells[12] is not None  # the oldest steps are the ones forgotten


def test_legal_actions_offer_undo_and_redo_only_when_there_is_something(game):
    seat = game.current
    assert not {Undo(), Redo()} & set(game.legal_actions(seat))
    placed = game.apply(Place(game.trays[seat][0], 0, 0), seat)
    assert Undo() in placed.legal_actions(seat) and Redo() not in placed.legal_actions(seat)
    undone = placed.apply(Undo(), seat)
    assert Redo() in undone.legal_actions(seat) and Undo() not in undone.legal_actions(seat)
    assert Undo() not in placed.legal_actions(seat, arranging=False)


def test_the_history_survives_json_and_a_replay(game):
    seat = game.current
    a, b = game.trays[seat]
    log = [(seat, Place(a, 5, 3)), (seat, Place(b, 6, 0)), (seat, Swap(5, 6)), (seat, Undo())]
    state = game
    for who, action in log:
        state = state.apply(action, who)
    assert GameState.from_json(state.to_json()) == state
    # A replay of the whole log, from the deal, reaches the same state, history included.
    start = new_game(3, 77)
    full = []
    walk = start
    while walk != game:
        forced = walk.forced_action()
        actions = [forced] if forced else [Draft(walk.draw_tiles()[0]), ConfirmDraft()]
        for action in actions:
            full.append((walk.current, action))
            walk = walk.apply(action, walk.current)
    assert replay(3, 77, [*full, *log]) == state


def test_a_history_holding_other_tiles_is_damage_found_when_stepped_to(game):
    seat = game.current
    state = game.apply(Place(game.trays[seat][0], 0, 0), seat)
    data = state.to_json()
    placed, tray = data["undo"][seat][0].split("|")
    stranger = next(t for t in range(60) if t not in state.trays[seat])
    data["undo"][seat][0] = f"{placed}|{tray},{stranger}"
    loaded = GameState.from_json(data)
    with pytest.raises(RuleError) as damaged:
        loaded.apply(Undo(), seat)
    assert damaged.value.code == "bad_state"
    data["undo"][seat][0] = "not an arrangement"
    with pytest.raises(RuleError) as damaged:
        GameState.from_json(data).apply(Undo(), seat)
    assert damaged.value.code == "bad_state"
    data["undo"][seat][0] = 7
    with pytest.raises(RuleError) as damaged:
        GameState.from_json(data)
    assert damaged.value.code == "bad_state"


def test_a_state_built_without_histories_still_undoes(game):
    bare = replace(game, undo=(), redo=())
    seat = bare.current
    state = bare.apply(Place(bare.trays[seat][0], 0, 0), seat)
    assert state.apply(Undo(), seat).boards[seat] == bare.boards[seat]
