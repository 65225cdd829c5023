"""Whole games played straight on the rules state: greedy players, or random legal actions.

For the command line (`python -m games.tools simulate`), the benchmarks, generated data and the
tests; the platform itself never plays a game this way.
"""

from __future__ import annotations

import random

from games.rules.actions import Action, ConfirmDraft
from games.rules.greedy import _do, arrange, choose_draft
from games.rules.state import DRAFTING, FINISHING, GameState, auto_finish_actions, new_game


def play_game(
    players: int, seed: int, first_seat: int = 0, record: bool = True
) -> tuple[GameState, list[tuple[int, Action]]]:
    """Play a whole game with greedy players; return the final state and the event log."""
    state = new_game(players, seed, first_seat)
    events: list | None = [] if record else None
    while state.phase == DRAFTING:
        seat = state.current
        forced = state.forced_action()
        if forced is not None:
            state = _do(state, forced, seat, events)
            state = arrange(state, seat, events)
            continue
        state = _do(state, choose_draft(state, seat), seat, events)
        state = arrange(state, seat, events)
        state = _do(state, ConfirmDraft(), seat, events)
    for seat in range(players):
        if state.phase == FINISHING and not state.finished[seat]:
            state = arrange(state, seat, events)
            for action in auto_finish_actions(state, seat):
                state = _do(state, action, seat, events)
    return state, events or []


def random_action(state: GameState, seat: int, rng: random.Random) -> Action | None:
    """Return a uniformly random allowed action for `seat` (None if it has none)."""
    actions = state.legal_actions(seat)
    return rng.choice(actions) if actions else None
