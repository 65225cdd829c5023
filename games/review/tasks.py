"""The review's Celery task: thin, by id, named, time-limited (games/tasks.py says how the
site's tasks behave). games/tasks.py `analyse_game` queues it once the post-game analysis is
stored, and the sweep queues it again for a finished game still without a review."""

import logging

from celery import current_app, shared_task
from django.conf import settings
from django.core.cache import cache

from games.review import compute, storing

logger = logging.getLogger(__name__)

REVIEW_TASK = "games.review_game"
# The task's wall-clock limits: well past its CPU budget (compute.REVIEW_CPU_SECONDS, 120 s by
# default, and hindsight's few seconds), for a worker whose machine is busy.
TIME_LIMIT = 600
SOFT_TIME_LIMIT = 570
CUT_PUZZLES_TASK = "games.cut_puzzles"


@shared_task(name=REVIEW_TASK, time_limit=TIME_LIMIT, soft_time_limit=SOFT_TIME_LIMIT)
def review_game(game_id: int) -> bool:
    """Review the finished game `game_id` draft by draft and store it (once); return whether
    this run stored it. Then cut its puzzles (games/puzzles/tasks.py), by the task's name."""
    key = f"tasks:reviewing:{game_id}"
    if not _claim(key, TIME_LIMIT):
        logger.info("review_game: game %s is being reviewed by another task", game_id)
        return False
    try:
        found = compute.review_of(game_id=game_id)
        stored = found is not None and storing.record_review(game_id=game_id, found=found)
    finally:
        _release(key)
    if stored:
        logger.info("review_game: game %s reviewed in %.1f s of CPU", game_id, found.cpu_seconds)
        if getattr(settings, "CUT_PUZZLES_AFTER_REVIEW", True):
            current_app.signature(CUT_PUZZLES_TASK, args=(game_id,)).apply_async()
    return bool(stored)


def queue_review(game_id: int, **options) -> None:
    """Queue the review of a game by the task's name (the callers need not import this)."""
    current_app.signature(REVIEW_TASK, args=(game_id,)).apply_async(**options)


def _claim(key: str, seconds: int) -> bool:
    """One copy at a time: a second copy of the task skips while the first runs (its storing
    would be refused anyway; this saves the CPU). Without the cache, it runs."""
    try:
        return bool(cache.add(key, 1, seconds))
    except Exception as error:
        logger.warning("cannot claim %s (%s); running anyway", key, error)
        return True


def _release(key: str) -> None:
    try:
        cache.delete(key)
    except Exception as error:
        logger.warning("cannot release %s (%s); it expires by itself", key, error)
