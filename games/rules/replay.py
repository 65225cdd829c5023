"""Replay: a game's states folded from its start and its event log, once.

Like scalachess's `Replay`, every reader of the past uses this one fold: the platform's replay
page, the rebuilding of a stored game from its events, the checks of the tests. An event is a
(seat, action) pair, the action a rules `Action` or its JSON form.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from .actions import Action
from .state import DRAFTING, GameState, new_game

Event = tuple[int, Action | dict]


class Fold:
    """The fold one event at a time, for a reader that takes a game's events as they come (the
    move log, games/move_log.py): the state as it stands, and before and after each event."""

    def __init__(
        self, players: int, seed: int, first_seat: int = 0, *, strict_finish: bool = False
    ):
        self.state: GameState = new_game(players, seed, first_seat, strict_finish=strict_finish)

    @classmethod
    def from_start(cls, start: dict) -> Fold:
        """The fold of a game from the data of its start event (its players, seed, first seat
        and the table's options): the one place a stored game's start is dealt again."""
        return cls(
            start["players"],
            start["seed"],
            start["first_seat"],
            strict_finish=start.get("strict_finish", False),
        )

    def take(self, seat: int, action: Action | dict) -> tuple[GameState, GameState]:
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
) -> Iterator[GameState]:
    """Yield the state at the start, then after each event in order (RuleError if one is not
    allowed where it stands). `strict_finish` is the table's option, as at the start."""
    fold = Fold(players, seed, first_seat, strict_finish=strict_finish)
    yield fold.state
    for seat, action in events:
        yield fold.take(seat, action)[1]


def replay(
    players: int,
    seed: int,
    events: Iterable[Event],
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
) -> GameState:
    """Return the state after every event of the log."""
    return deque(states(players, seed, events, first_seat, strict_finish=strict_finish), maxlen=1)[
        0
    ]


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
    ):
        self.states: tuple[GameState, ...] = tuple(
            states(players, seed, events, first_seat, strict_finish=strict_finish)
        )

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
