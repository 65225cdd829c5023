"""Which finished games still wait for their review: the sweep (games/tasks.py) queues them."""

from datetime import datetime, timedelta

from games.models import Game

# The review follows the analysis, a few minutes after the end at most; the sweep looks for
# games past this grace, and gives up on those that ended longer ago than the window.
REVIEW_GRACE = timedelta(minutes=15)
REVIEW_WINDOW = timedelta(days=1)


def reviews_due(now: datetime, limit: int) -> list[int]:
    """The ids of games that ended between REVIEW_WINDOW and REVIEW_GRACE ago, analysed and not
    reviewed yet."""
    return list(
        Game.objects.filter(
            status=Game.Status.ENDED,
            ended_at__lte=now - REVIEW_GRACE,
            ended_at__gte=now - REVIEW_WINDOW,
            engine_review__isnull=True,
        )
        .exclude(seats__best_score__isnull=True)
        .order_by("ended_at")
        .values_list("pk", flat=True)
        .distinct()[:limit]
    )
