"""The slow half of a game's review: read the finished game's log and ask the engine. Reads
only, in no transaction and under no lock; games/review/storing.py stores what it found.

The budget (settings.ENGINE_REVIEW, every key optional):

- `iterations`, `samples`, `solver_nodes`: the engine's budget per draft (default: the rules
  package's `review_budget(players)`: 2,000 iterations with two players, 1,000 and 3
  calibration samples with more);
- `cpu_seconds`: the whole review's CPU budget (default 120 s): past the pace that keeps to it,
  the review lowers the budget of the drafts left (games/rules/review.py);
- `hindsight_solves`, `hindsight_nodes`: hindsight's solver calls per seat and nodes per call.
"""

import time
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings

from games import rules
from games.models import Game
from games.review.models import GameReview
from games.rules import hindsight, review
from games.rules.engine import Budget

REVIEW_CPU_SECONDS = 120.0
HINDSIGHT_SOLVES = 40
HINDSIGHT_NODES = 50_000


@dataclass(frozen=True)
class Found:
    """What the engine found about a game: the review's JSON and every seat's hindsight."""

    drafts: dict
    hindsight: list
    complete: bool
    cpu_seconds: float


@dataclass(frozen=True)
class Log:
    """A finished game's rules log, as the rules package replays it."""

    players: int
    seed: int
    first_seat: int
    strict_finish: bool
    events: list  # (seat, action JSON), the rules events after the start, in order
    layout: str = "standard"  # the pool's (games/rules/deal.py)

    def game(self) -> dict[str, Any]:
        """The game as the rules' readers of a log take it (rules.Replay, review_game,
        hindsight_all, drafting_puzzles): by these names."""
        return {
            "players": self.players,
            "seed": self.seed,
            "events": self.events,
            "first_seat": self.first_seat,
            "strict_finish": self.strict_finish,
            "layout": self.layout,
        }


def game_log(game: Game) -> Log:
    """The game's rules log (the same events, in the same order, as the replay's steps:
    games/history/replay.py `rules_events`), so that a review's `step` is a replay step."""
    events = list(game.events.order_by("number").values_list("kind", "seat", "action", "data"))
    start = next(data for kind, _, _, data in events if kind == "started")
    return Log(
        players=start["players"],
        seed=start["seed"],
        first_seat=start["first_seat"],
        strict_finish=start.get("strict_finish", False),
        layout=start.get("layout", rules.STANDARD),
        events=[(seat, action) for _, seat, action, _ in events if action is not None],
    )


def budget_for(players: int) -> tuple[Budget, float]:
    """The engine's budget per draft and the review's CPU budget, from the settings."""
    options = getattr(settings, "ENGINE_REVIEW", {})
    budget = review.review_budget(players)
    for name in ("iterations", "samples", "solver_nodes"):
        if options.get(name) is not None:
            budget = replace(budget, **{name: options[name]})
    return budget, float(options.get("cpu_seconds", REVIEW_CPU_SECONDS))


def hindsight_budget() -> tuple[int, int]:
    """Hindsight's solver calls per seat and nodes per call, from the settings: it runs after the
    review, outside its CPU budget."""
    options = getattr(settings, "ENGINE_REVIEW", {})
    solves, nodes = options.get("hindsight_solves"), options.get("hindsight_nodes")
    return (
        HINDSIGHT_SOLVES if solves is None else solves,
        HINDSIGHT_NODES if nodes is None else nodes,
    )


def review_of(*, game_id: int) -> Found | None:
    """Review the finished game `game_id` (None when it has not ended or is reviewed already)."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.ENDED).first()
    if game is None or GameReview.objects.filter(game_id=game_id).exists():
        return None
    return review_log(game_log(game))


def review_log(log: Log) -> Found:
    """The engine's review and every seat's hindsight of a game's log."""
    start = time.process_time()
    budget, cpu_seconds = budget_for(log.players)
    found = review.review_game(**log.game(), budget=budget, cpu_seconds=cpu_seconds)
    max_solves, solver_nodes = hindsight_budget()
    seats = hindsight.hindsight_all(**log.game(), max_solves=max_solves, solver_nodes=solver_nodes)
    return Found(
        drafts=found.to_json(),
        hindsight=[seat.to_json() for seat in seats],
        complete=found.complete,
        cpu_seconds=round(time.process_time() - start, 2),
    )
