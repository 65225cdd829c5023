"""Whole games played straight on the rules state: greedy players, or random legal actions.

    python -m benchmarks simulate --players N --seed S [--games K]

For that command (each game's scores, places, ranking and results as JSON), the benchmarks,
generated data and the tests; the platform itself never plays a game this way.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import TextIO

from games.rules import cli
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


def simulate(args: argparse.Namespace, stdin: TextIO) -> dict:
    if args.games < 1:
        raise cli.InputError("--games must be at least 1")
    games = []
    for k in range(args.games):
        seed = args.seed + k
        state, events = play_game(args.players, seed)
        results = state.results()
        games.append(
            {
                "seed": seed,
                "events": len(events),
                "scores": [r.score for r in results],
                "places": [r.place for r in results],
                "ranking": [r.seat for r in sorted(results, key=lambda r: (r.place, r.seat))],
                "results": [r.to_json() for r in results],
            }
        )
    return {"players": args.players, "games": games}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks simulate",
        description="Play whole games with simple automatic players; JSON out.",
    )
    parser.add_argument("--players", type=int, required=True, choices=range(2, 6), metavar="N")
    parser.add_argument("--seed", type=int, required=True, metavar="S")
    parser.add_argument("--games", type=int, default=1, metavar="K")
    parser.set_defaults(func=simulate)
    return parser


def main(argv: Sequence[str] | None = None, **streams: TextIO) -> int:
    """`python -m benchmarks simulate`; return the exit status (2 for bad input)."""
    return cli.run(build_parser(), argv, **streams)
