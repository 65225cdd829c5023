"""Replay: a game's states folded from its start and its event log, once.

Like scalachess's `Replay`, every reader of the past uses this one fold: the platform's replay
page, the move log, the integrity check of a restored database, the checks of the tests. An
event is a (seat, action) pair, the action a rules `Action` or its JSON form. A game's start is
rebuilt here alone (`state_at_start`), from what its start records: the number of players, the
seed, the first seat, the table's strict-finish option and the pool's layout (deal.py: the
guided game's short deal).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .actions import Action
from .deal import STANDARD
from .state import DRAFTING, GameState, new_game

Event = tuple[int, Action | dict[str, Any]]


def start_arguments(start: Mapping[str, Any]) -> dict[str, Any]:
    """`new_game`'s arguments from what a game's start records (the JSON of the platform's
    "started" event): `players`, `seed`, `first_seat` (0 if absent), `strict_finish` (off if
    absent) and `layout` (the standard one if absent: every game before the short deal was
    one); KeyError if one it needs is missing."""
    return {
        "players": start["players"],
        "seed": start["seed"],
        "first_seat": start.get("first_seat", 0),
        "strict_finish": bool(start.get("strict_finish", False)),
        "layout": start.get("layout", STANDARD),
    }


def state_at_start(start: Mapping[str, Any]) -> GameState:
    """The state at a game's start from what its start records (`start_arguments`); RuleError,
    KeyError or TypeError if it deals no game."""
    return new_game(**start_arguments(start))


def fold(first: GameState, events: Iterable[Event]) -> Iterator[GameState]:
    """Yield `first`, then the state after each event in order (RuleError if one is not allowed
    where it stands: the fold stops there)."""
    state = first
    yield state
    for seat, action in events:
        state = state.apply(action, seat)
        yield state


class Fold:
    """The fold one event at a time, for a reader that takes a game's events as they come (the
    move log, games/move_log.py): the state as it stands, and before and after each event."""

    def __init__(self, first: GameState) -> None:
        self.state: GameState = first

    @classmethod
    def from_start(cls, start: Mapping[str, Any]) -> Fold:
        """The fold of a game from what its start records (`state_at_start`)."""
        return cls(state_at_start(start))

    def take(self, seat: int, action: Action | dict[str, Any]) -> tuple[GameState, GameState]:
        """Apply one event (RuleError if it is not allowed where it stands); return the state
        before it and after it."""
        before = self.state
        self.state = before.apply(action, seat)
        return before, self.state


def states(
    players: int,
    seed: int,
    events: Iterable[Event],
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
) -> Iterator[GameState]:
    """Yield the state at the start, then after each event in order (RuleError if one is not
    allowed where it stands). `strict_finish` is the table's option and `layout` the pool's,
    as at the start."""
    yield from fold(
        new_game(players, seed, first_seat, strict_finish=strict_finish, layout=layout), events
    )


def states_from(start: Mapping[str, Any], events: Iterable[Event]) -> Iterator[GameState]:
    """`states` from what a game's start records (`state_at_start`): the deal is made when the
    first state is asked for, so a start that deals no game raises there."""
    yield from fold(state_at_start(start), events)


def replay(
    players: int,
    seed: int,
    events: Iterable[Event],
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
) -> GameState:
    """Return the state after every event of the log."""
    walk = states(players, seed, events, first_seat, strict_finish=strict_finish, layout=layout)
    return deque(walk, maxlen=1)[0]


@dataclass(frozen=True, slots=True)
class Turn:
    """A stretch of the game that belongs to one draft: its number (1-based; None for the
    finishing phase after the last draft), the step at which it begins, and who drafts in it."""

    number: int | None
    step: int
    seat: int | None


def turn_number(state: GameState) -> int | None:
    """The draft that `state` belongs to: the next one to complete, or None once drafting is
    over."""
    return state.drafts + 1 if state.phase == DRAFTING else None


class Replay:
    """Every state of a game, step 0 (the deal) to the last (after the last event), and the
    turns they fall into, from one fold of its event log."""

    def __init__(
        self,
        players: int,
        seed: int,
        events: Iterable[Event],
        first_seat: int = 0,
        *,
        strict_finish: bool = False,
        layout: str = STANDARD,
    ) -> None:
        self.states: tuple[GameState, ...] = tuple(
            states(players, seed, events, first_seat, strict_finish=strict_finish, layout=layout)
        )

    @classmethod
    def from_start(cls, start: Mapping[str, Any], events: Iterable[Event]) -> Replay:
        """The replay of a game from what its start records (`state_at_start`) and its events."""
        return cls(events=events, **start_arguments(start))

    @property
    def final(self) -> GameState:
        return self.states[-1]

    @property
    def last_step(self) -> int:
        return len(self.states) - 1

    @cached_property
    def turns(self) -> tuple[Turn, ...]:
        """The turns in order: each begins at the first step whose turn number differs from the
        step before (a completed draft passes the turn, or ends drafting)."""
        found = []
        previous = object()
        for step, state in enumerate(self.states):
            number = turn_number(state)
            if number != previous:
                found.append(Turn(number, step, state.current))
                previous = number
        return tuple(found)

    def turn_at(self, step: int) -> int | None:
        """The turn number of the state at `step`."""
        return turn_number(self.states[step])
