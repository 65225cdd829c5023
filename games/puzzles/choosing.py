"""Which puzzle a player gets: the day's puzzle (the same for everyone that day, chosen
deterministically), the next one near their rating, and their history."""

import datetime
import hashlib

from django.db.models import F, Func
from django.utils import timezone

from games.history.ratings import INITIAL
from games.puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating

HISTORY_LENGTH = 20


def daily_puzzle(day: datetime.date | None = None) -> Puzzle | None:
    """The puzzle of `day` (today, UTC, by default): among the puzzles stored before the day
    began, the one a hash of the date picks. Puzzles cut during the day change nothing until
    the next; the same day always gives the same puzzle, on every server."""
    day = day or timezone.now().date()
    start = datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)
    candidates = Puzzle.objects.filter(created_at__lt=start).order_by("id")
    count = candidates.count()
    if not count:
        return None
    index = int.from_bytes(hashlib.sha256(day.isoformat().encode()).digest()[:8], "big")
    return candidates[index % count]


def rating_of(user) -> PuzzleRating | None:
    return PuzzleRating.objects.filter(user=user).first()


def next_puzzle(user, kind: str | None = None) -> Puzzle | None:
    """A puzzle `user` has not tried, the nearest to their puzzle rating (then the oldest)."""
    rating = rating_of(user)
    mine = rating.display if rating else INITIAL.display
    found = Puzzle.objects.exclude(attempts__user=user)
    if kind:
        found = found.filter(kind=kind)
    distance = Func(F("display") - mine, function="ABS")
    return found.annotate(distance=distance).order_by("distance", "created_at", "id").first()


def history(user, limit: int = HISTORY_LENGTH) -> list[PuzzleAttempt]:
    """The puzzles `user` answered, newest first."""
    return list(
        PuzzleAttempt.objects.filter(user=user, submitted_at__isnull=False)
        .select_related("puzzle")
        .order_by("-submitted_at")[:limit]
    )
