"""The review of a finished game, draft by draft, by the engine (engine.py).

For every draft a player chose (a confirmed `Draft`; the server's forced takes are no choice),
the engine judges every tile of the draw column from the position at that draft, each with the
same effort (`engine.evaluate`): with two players the expected final *margin* of the drafting
player over the other, with more the drafting player's expected final *score*. The value lost
is the engine's best value less the value of the tile taken (never below 0: a tile as good as
the engine's choice loses nothing).

Accuracy, per draft and per player (docs/engine.md says the same):

    accuracy of a draft = 100 x exp(-loss / ACCURACY_SCALE)        (ACCURACY_SCALE = 6 points)
    accuracy of a player = the mean of the accuracies of their drafts

so a draft that loses nothing is 100, one that loses 1 point about 85, 3 points about 61, 6
points 37, 12 points 14. Like lichess's accuracy it is an average of per-move figures that fall
off quickly with the value lost, so one blunder costs more than a few slips; unlike lichess's it
is measured in points of the final score (expected by the engine), not in winning chances.

A review is budgeted: `budget` per draft (engine.Budget: iterations, calibration samples,
solver nodes), and `cpu_seconds` for the whole game. When the drafts done so far show that the
budget would not last, the rest get fewer iterations (halved, down to 1/8) and, last, one
calibration sample; each draft records what it was given, so a review can be reproduced.
Without `cpu_seconds` (or when it is not reached) a review depends only on the game, the budget
and the seed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field, replace

from .actions import ConfirmDraft, Draft, action_from_json
from .deal import STANDARD
from .engine import Budget, Evaluation, Position, evaluate
from .potential import Potential
from .replay import Event, states
from .state import GameState

#: Points of value lost that bring a draft's accuracy to 100/e (about 37).
ACCURACY_SCALE = 6.0
#: A draft that loses at least this many points is a mistake worth listing.
MISTAKE_LOSS = 3.0
#: The review's default CPU budget for a whole game (seconds).
REVIEW_CPU_SECONDS = 120.0


def review_budget(players: int) -> Budget:
    """The review's default budget per draft. With two players each ends with 25 tiles, where
    the engine's bound is close to the truth and calibrating adds more noise than it removes
    (docs/engine.md): no calibration. With more, three calibration playouts per choice."""
    if players == 2:
        return Budget(iterations=2000, samples=0, time_cap=30)
    return Budget(iterations=1000, samples=3, solver_nodes=10_000, time_cap=30)


def draft_accuracy(loss: float) -> float:
    """The accuracy of one draft (0 to 100) from the points it lost."""
    return 100.0 * math.exp(-max(0.0, loss) / ACCURACY_SCALE)


@dataclass
class ChoiceValue:
    """A tile of the draw column and what the engine expects of it for the drafting player."""

    tile: int
    value: float
    score: float

    def to_json(self) -> dict:
        return {"tile": self.tile, "value": round(self.value, 2), "score": round(self.score, 2)}


@dataclass
class DraftReview:
    """One chosen draft: its number in the game (completed drafts before it + 1, forced takes
    counted), the step of its `Draft` event in the log (0-based index of the event, the state
    before it is `states[step]`), the seat, the tile taken and the engine's choice, every
    choice's value (best first), the loss and the accuracy, every seat's expected final score
    after the draft, and the budget it was given."""

    number: int
    step: int
    seat: int
    taken: int
    best: int
    value_taken: float
    value_best: float
    loss: float
    accuracy: float
    choices: list[ChoiceValue]
    expected_scores: list[float]
    iterations: int
    samples: int

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "step": self.step,
            "seat": self.seat,
            "taken": self.taken,
            "best": self.best,
            "value_taken": round(self.value_taken, 2),
            "value_best": round(self.value_best, 2),
            "loss": round(self.loss, 2),
            "accuracy": round(self.accuracy, 1),
            "choices": [c.to_json() for c in self.choices],
            "expected_scores": [round(s, 2) for s in self.expected_scores],
            "iterations": self.iterations,
            "samples": self.samples,
        }


@dataclass
class PlayerReview:
    """A seat's figures: drafts reviewed, accuracy, mean and total loss, final score, and its
    biggest mistakes (draft numbers, worst first)."""

    seat: int
    drafts: int
    accuracy: float | None
    mean_loss: float
    total_loss: float
    final_score: int
    mistakes: list[int] = field(default_factory=list)

    def to_json(self) -> dict:
        data = asdict(self)
        data["accuracy"] = None if self.accuracy is None else round(self.accuracy, 1)
        data["mean_loss"] = round(self.mean_loss, 2)
        data["total_loss"] = round(self.total_loss, 2)
        return data


@dataclass
class GameReview:
    """The review of a game: `measure` is "margin" (two players) or "score"; `drafts` in the
    order played; `players` per seat; `mistakes` the biggest of the game (draft numbers, worst
    first); `complete` False when the CPU budget made the review lower some drafts' budget."""

    players: int
    seed: int
    measure: str
    drafts: list[DraftReview]
    seats: list[PlayerReview]
    mistakes: list[int]
    budget: dict
    complete: bool
    seconds: float = field(default=0.0, compare=False)

    def to_json(self) -> dict:
        return {
            "version": 1,
            "players": self.players,
            "seed": self.seed,
            "measure": self.measure,
            "drafts": [d.to_json() for d in self.drafts],
            "seats": [p.to_json() for p in self.seats],
            "mistakes": self.mistakes,
            "budget": self.budget,
            "complete": self.complete,
            "seconds": round(self.seconds, 2),
        }

    @classmethod
    def from_json(cls, data: dict) -> GameReview:
        """A review saved by `to_json` (its values as rounded there)."""
        return cls(
            players=data["players"],
            seed=data["seed"],
            measure=data["measure"],
            drafts=[
                DraftReview(
                    **{
                        **{k: v for k, v in d.items() if k != "choices"},
                        "choices": [ChoiceValue(**c) for c in d["choices"]],
                    }
                )
                for d in data["drafts"]
            ],
            seats=[PlayerReview(**p) for p in data["seats"]],
            mistakes=list(data["mistakes"]),
            budget=dict(data["budget"]),
            complete=data["complete"],
            seconds=data.get("seconds", 0.0),
        )


@dataclass(frozen=True)
class ChosenDraft:
    """A draft a player chose: the step of its `Draft` event and the state just before it."""

    step: int
    seat: int
    tile: int
    before: GameState


def chosen_drafts(
    players: int,
    seed: int,
    events: Iterable[Event],
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
) -> tuple[list[ChosenDraft], GameState]:
    """The confirmed drafts of a game's log, in order, and its final state. A draft that was
    undone is not one; its replacement is."""
    found: list[ChosenDraft] = []
    pending: ChosenDraft | None = None
    events = list(events)
    walk = states(players, seed, events, first_seat, strict_finish=strict_finish, layout=layout)
    state = next(walk)
    for step, ((seat, action), after) in enumerate(zip(events, walk, strict=True)):
        if isinstance(action, dict):
            action = action_from_json(action)
        if isinstance(action, Draft):
            pending = ChosenDraft(step, seat, action.tile_id, state)
        elif isinstance(action, ConfirmDraft) and pending is not None:
            found.append(pending)
            pending = None
        elif pending is not None and after.pending is None:
            pending = None  # undone (or put back by an early end)
        state = after
    return found, state


def review_game(
    players: int,
    seed: int,
    events: Iterable[Event],
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
    budget: Budget | None = None,
    cpu_seconds: float | None = REVIEW_CPU_SECONDS,
    engine_seed: int = 0,
    numbers: Collection[int] | None = None,
) -> GameReview:
    """Review every chosen draft of a game (see the module docstring), or those whose draft
    numbers are in `numbers`. The budget by default: `review_budget(players)`."""
    start = time.process_time()
    budget = budget or review_budget(players)
    drafts, final = chosen_drafts(
        players, seed, events, first_seat, strict_finish=strict_finish, layout=layout
    )
    if numbers is not None:
        drafts = [d for d in drafts if d.before.drafts + 1 in numbers]
    measure = "margin" if players == 2 else "score"
    reviewed: list[DraftReview] = []
    complete = True
    current = budget
    potentials = None
    for index, chosen in enumerate(drafts):
        position = Position.of(chosen.before)
        if len(position.choices()) < 2:
            continue  # one kind of tile: no choice to judge
        if cpu_seconds is not None and reviewed:
            spent = time.process_time() - start
            per_draft = spent / len(reviewed)
            left = len(drafts) - index
            while spent + per_draft * left > cpu_seconds and current != _floor(budget):
                current = _lower(current, budget)
                per_draft /= 2
                complete = False
        # With more than two players the review judges each seat's own score (rivalry 0).
        evaluation = evaluate(
            position,
            current,
            taken=chosen.tile,
            seed=engine_seed,
            potentials=potentials,
            rivalry=1.0 if players == 2 else 0.0,
        )
        potentials = potentials or _potentials(position)
        reviewed.append(_draft_review(chosen, evaluation, current, measure))
    final_scores = [r.score for r in final.results()]
    seats = [_player_review(seat, reviewed, final_scores[seat]) for seat in range(players)]
    worst = sorted(
        (d for d in reviewed if d.loss >= MISTAKE_LOSS), key=lambda d: (-d.loss, d.number)
    )
    return GameReview(
        players=players,
        seed=seed,
        measure=measure,
        drafts=reviewed,
        seats=seats,
        mistakes=[d.number for d in worst[:5]],
        budget={
            "iterations": budget.iterations,
            "samples": budget.samples,
            "solver_nodes": budget.solver_nodes,
            "cpu_seconds": cpu_seconds,
            "engine_seed": engine_seed,
        },
        complete=complete,
        seconds=time.process_time() - start,
    )


def _potentials(position: Position) -> list[Potential]:
    return [Potential(colours) for colours in position.colours]


def _floor(budget: Budget) -> Budget:
    return replace(
        budget, iterations=max(50, budget.iterations // 8), samples=min(1, budget.samples)
    )


def _lower(current: Budget, budget: Budget) -> Budget:
    """The next lower budget: half the iterations down to an eighth, then one sample."""
    floor = _floor(budget)
    if current.iterations > floor.iterations:
        return replace(current, iterations=max(floor.iterations, current.iterations // 2))
    return floor


def _draft_review(
    chosen: ChosenDraft, evaluation: Evaluation, budget: Budget, measure: str
) -> DraftReview:
    best = evaluation.best
    taken = evaluation.of(chosen.tile)
    if taken is None:  # pragma: no cover - evaluate judges every tile of the draw column
        raise AssertionError("the taken tile was not judged")
    loss = max(0.0, best.value - taken.value)
    # A tile of the same kind and colour as the engine's is the engine's choice.
    best_tile = chosen.tile if loss == 0 else best.tile
    return DraftReview(
        number=chosen.before.drafts + 1,
        step=chosen.step,
        seat=chosen.seat,
        taken=chosen.tile,
        best=best_tile,
        value_taken=taken.value if measure == "margin" else taken.score,
        value_best=best.value if measure == "margin" else best.score,
        loss=loss,
        accuracy=draft_accuracy(loss),
        choices=[
            ChoiceValue(c.tile, c.value if measure == "margin" else c.score, c.score)
            for c in evaluation.choices
        ],
        expected_scores=list(evaluation.after_taken or []),
        iterations=budget.iterations,
        samples=budget.samples,
    )


def _player_review(seat: int, drafts: list[DraftReview], final_score: int) -> PlayerReview:
    own = [d for d in drafts if d.seat == seat]
    losses = [d.loss for d in own]
    worst = sorted((d for d in own if d.loss >= MISTAKE_LOSS), key=lambda d: (-d.loss, d.number))
    return PlayerReview(
        seat=seat,
        drafts=len(own),
        accuracy=sum(d.accuracy for d in own) / len(own) if own else None,
        mean_loss=sum(losses) / len(losses) if losses else 0.0,
        total_loss=sum(losses),
        final_score=final_score,
        mistakes=[d.number for d in worst[:3]],
    )
