"""The puzzles' Celery task: thin, by id, named, time-limited. Queued by name by the review's
task once a game's review is stored (games/review/tasks.py); `manage.py cut_puzzles` does the
same over the archive."""

import logging

from celery import shared_task

from games.puzzles import cutting

logger = logging.getLogger(__name__)


@shared_task(name="games.cut_puzzles", time_limit=300, soft_time_limit=280)
def cut_puzzles(game_id: int) -> int:
    """Cut the puzzles of a finished, reviewed game and store the new ones; return how many."""
    stored = cutting.store_puzzles(game_id=game_id, cuts=cutting.puzzles_of(game_id=game_id))
    if stored:
        logger.info("cut_puzzles: %s new puzzles from game %s", stored, game_id)
    return stored
