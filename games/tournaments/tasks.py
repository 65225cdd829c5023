"""The tournaments' Celery tasks: thin, by id, named, time-limited; each calls the changes of
games/tournaments/actions/, which decide under the tournament's lock, so a task run twice, at
once or late does no harm.

- `tournaments.game_ended`: queued by name when a tournament's game ends (games/effects.py):
  the standings change and the round may be over.
- `tournaments.sweep` (beat, every minute, like games.sweep): starts the tournaments whose
  start time has come (or cancels them with too few players), tells entrants a day ahead, and
  moves on the running ones that are due (a round whose deadline passed, or whose last game
  ended while its task was lost).
"""

import logging

from celery import shared_task
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from games.models import Game

from . import actions
from .models import Round, Tournament

logger = logging.getLogger(__name__)

SWEEP_BATCH = 50
# A round's pairing of 1,000 players, its games opened and seated, is the longest work here.
ROUND_TIME_LIMIT = 600


@shared_task(name="tournaments.game_ended", time_limit=ROUND_TIME_LIMIT, soft_time_limit=570)
def game_ended(game_id: int) -> str | None:
    return actions.game_ended(game_id=game_id)


@shared_task(name="tournaments.start", time_limit=ROUND_TIME_LIMIT, soft_time_limit=570)
def start(tournament_id: int) -> None:
    actions.start(tournament_id=tournament_id)


@shared_task(name="tournaments.advance", time_limit=ROUND_TIME_LIMIT, soft_time_limit=570)
def advance(tournament_id: int) -> str | None:
    return actions.advance(tournament_id=tournament_id)


@shared_task(name="tournaments.tell_soon", time_limit=60, soft_time_limit=50)
def tell_soon(tournament_id: int) -> None:
    actions.tell_soon(tournament_id=tournament_id)


def due(now) -> dict[str, list[int]]:
    """The tournaments with work due now, a batch of each."""
    opened = Tournament.objects.filter(status=Tournament.Status.OPEN)
    starting = list(
        opened.filter(starts_at__lte=now)
        .order_by("starts_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    soon = list(
        opened.filter(soon_told_at__isnull=True, starts_at__lte=now + actions.SOON)
        .exclude(pk__in=starting)
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    current = Round.objects.filter(tournament=OuterRef("pk"), number=OuterRef("round"))
    playing = Game.objects.filter(
        tournament_round__tournament=OuterRef("pk"), status=Game.Status.PLAYING
    )
    late = current.filter(deadline__lte=now)
    round_playing = playing.filter(tournament_round__number=OuterRef("round"))
    more = Q(format=Tournament.Format.SWISS, round__lt=F("rounds")) & ~Q(
        ending=Tournament.Ending.NONE_LEFT
    )
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    stuck = list(
        running.filter(
            (more & (Exists(late) | ~Exists(round_playing))) | (~more & ~Exists(playing))
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return {"starting": starting, "soon": soon, "due": stuck}


@shared_task(name="tournaments.sweep", time_limit=60, soft_time_limit=50)
def sweep() -> dict:
    options = {"expires": 5 * 60}
    found = due(timezone.now())
    for pk in found["starting"]:
        start.apply_async((pk,), **options)
    for pk in found["soon"]:
        tell_soon.apply_async((pk,), **options)
    for pk in found["due"]:
        advance.apply_async((pk,), **options)
    counts = {what: len(ids) for what, ids in found.items()}
    if any(counts.values()):
        logger.info("tournaments sweep: %s", counts)
    return counts
