"""The engine's review of a finished game (games/review/): every draft each player chose as the
engine judged it, each player's accuracy and mistakes, and their hindsight. A read token is
enough; the game's replay (reading.py) gives the events its steps index."""

from typing import Any, Literal

from django.utils.translation import gettext as _
from ninja import Field, Router, Schema

from games.review.models import GameReview

from . import schemas
from .auth import READ
from .errors import ApiRefusal, Refusal
from .reading import REFUSALS, _summary_of, _viewable

router = Router(auth=READ)


class ChoiceJudged(Schema):
    tile: int
    value: float = Field(description="The engine's value of drafting this tile (the measure).")
    score: float = Field(description="The drafting player's expected final score with it.")


class DraftJudged(Schema):
    number: int = Field(description="The draft's number in the game, forced takes counted.")
    step: int = Field(
        description="The index of its draft event among the replay's events: the state before "
        "it is the replay's step `step`, after it step `step + 1`."
    )
    seat: int
    taken: int = Field(description="The tile drafted.")
    best: int = Field(description="The engine's choice (the tile taken when it is as good).")
    value_taken: float
    value_best: float
    loss: float = Field(description="The value lost: value_best - value_taken, at least 0.")
    accuracy: float = Field(description="100 x exp(-loss / 6): docs/engine.md, Accuracy.")
    choices: list[ChoiceJudged] = Field(description="Every tile of the draw column, best first.")
    expected_scores: list[float] = Field(description="Every seat's expected final score after.")
    iterations: int
    samples: int


class SeatReview(Schema):
    seat: int
    drafts: int = Field(description="Its drafts judged.")
    accuracy: float | None = Field(description="The mean of its drafts' accuracies.")
    mean_loss: float
    total_loss: float
    final_score: int
    mistakes: list[int] = Field(description="Its biggest mistakes (draft numbers), worst first.")


class HindsightChange(Schema):
    number: int
    step: int
    taken: int
    instead: int


class HindsightOut(Schema):
    seat: int
    actual_score: int
    best_score: int = Field(
        description="The best score of tiles it could have drafted, the others' drafts as played."
    )
    bound_score: int
    proved: bool
    tiles: list[int]
    cells: list[list[int] | None] = Field(description="The best board: per space [tile, rotation].")
    tray: list[int]
    changes: list[HindsightChange] = Field(description="The drafts to make differently.")
    solves: int


class ReviewOut(Schema):
    game: schemas.GameSummary
    status: Literal["pending", "done"] = Field(
        description="pending: the review's task has not stored it yet (it runs after the game's "
        "analysis, usually within minutes); the other fields are then empty."
    )
    measure: Literal["margin", "score"] | None = Field(
        None, description="margin: a 2-player game (the expected margin); score: 3-5 players."
    )
    drafts: list[DraftJudged] = []
    seats: list[SeatReview] = []
    mistakes: list[int] = Field([], description="The game's five biggest (draft numbers).")
    hindsight: list[HindsightOut] = []
    complete: bool | None = Field(
        None, description="false when the CPU budget made some drafts' search smaller."
    )
    budget: dict[str, Any] | None = None
    cpu_seconds: float | None = None


@router.get(
    "/games/{game_id}/review",
    response={200: ReviewOut, **REFUSALS, 409: Refusal},
    tags=["games"],
)
def review(request, game_id: int):
    """The engine's draft-by-draft review of a finished game (docs/engine.md)."""
    found, seats = _viewable(request, game_id)
    if not found.is_over or found.seed is None:
        raise ApiRefusal(409, "not_ended", _("The review is there once the game has ended."))
    summary = _summary_of(found, seats, request.auth.user)
    stored = GameReview.objects.filter(game_id=found.pk).first()
    if stored is None:
        return {"game": summary, "status": "pending"}
    data = stored.drafts
    return {
        "game": summary,
        "status": "done",
        "measure": data["measure"],
        "drafts": data["drafts"],
        "seats": data["seats"],
        "mistakes": data["mistakes"],
        "hindsight": stored.hindsight,
        "complete": stored.complete,
        "budget": data["budget"],
        "cpu_seconds": stored.cpu_seconds,
    }
