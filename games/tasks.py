"""Celery tasks: thin, by id, named, time-limited; each calls the functions the views and the
computer players call (games/play/actions/, games/bots/turns.py). The outbox's own task,
`infra.send_email`, is infra/tasks.py; the sweep queues it for the rows still due.

Every task is safe to run twice, late, or after the player has moved: the game-changing ones
re-check the game under its row lock and are keyed to the version the sweep saw, and an email
is claimed before it is sent and never sent again once marked sent.

Nothing here waits for a deadline with a countdown: Celery beat runs `games.sweep` every minute
(settings.CELERY_BEAT_SCHEDULE) and the sweep queues the work that is due, emails included. A
lost task, a restarted worker or an emptied Redis therefore delays a game or an email by one
sweep at most.

Beat should run once, but two beats by mistake do no harm: the game-changing tasks are keyed to
versions under the row lock, the reminder is cleared under it, an email is claimed, a digest is
one row per reader and day, and the analysis, slow work outside any lock, skips while a copy of
itself runs (`_claim`). tests/scale/test_two_beats.py runs every periodic task twice at once.

The state changes queue these tasks by name (games/effects.py), never by importing this module.
"""

import logging

from celery import shared_task
from django.core.cache import cache
from django.utils import timezone

from games import rules
from games.bots import turns
from games.first_visit import guests
from games.history import analysis
from games.notices import delivery, digest
from games.play import actions, clock, quickplay, vacations
from games.review import due as reviews
from games.review import tasks as review_tasks
from infra import health, outbox
from infra.tasks import send_email

logger = logging.getLogger(__name__)

# A task queued by the sweep is dropped if no worker picked it up by then: the next sweep
# queues it again if it is still due, so a backlog never grows with copies.
SWEPT_TASK_EXPIRES = 5 * 60


@shared_task(name="games.take_last_tile", time_limit=30, soft_time_limit=20)
def take_last_tile(game_id: int) -> None:
    """Take the last tile of a draw column for the player whose turn begins (idempotent)."""
    actions.take_last_tile(game_id=game_id)


@shared_task(name="games.time_out_turn", time_limit=30, soft_time_limit=20)
def time_out_turn(game_id: int, expected_version: int) -> None:
    """Play an overdue turn for its player, if the game is still at `expected_version`."""
    actions.time_out_turn(game_id=game_id, expected_version=expected_version)


@shared_task(name="games.finish_at_deadline", time_limit=60, soft_time_limit=50)
def finish_at_deadline(game_id: int, expected_version: int) -> None:
    """Submit every unfinished board of an overdue finishing phase; the game ends."""
    actions.finish_at_deadline(game_id=game_id, expected_version=expected_version)


@shared_task(name="games.remind_players", time_limit=30, soft_time_limit=20)
def remind_players(game_id: int) -> None:
    """Send a turn's reminder if it is due (once a turn: the game row remembers)."""
    actions.remind_players(game_id=game_id)


@shared_task(name="games.end_vacation", time_limit=60, soft_time_limit=50)
def end_vacation(user_id: int) -> None:
    """End a vacation that ran out: its days charged, the player's games redrawn (idempotent)."""
    vacations.end_vacation(user_id=user_id, by_itself=True)


@shared_task(name="games.pair_quick_play", time_limit=60, soft_time_limit=50)
def pair_quick_play() -> int:
    """Pair the players waiting in quick play whose windows meet by now (beat, every 30 s)."""
    return len(quickplay.pair_waiting())


@shared_task(name="games.bot_move", time_limit=60, soft_time_limit=50)
def bot_move(game_id: int, bot_id: int, version: int) -> None:
    """Play what is due for a computer player now (idempotent: it plans on the game as it is)."""
    turns.play_bot_turn(game_id=game_id, bot_id=bot_id, version=version)


@shared_task(name="games.stand_in_move", time_limit=60, soft_time_limit=50)
def stand_in_move(game_id: int, seat_number: int, version: int) -> None:
    """Play what is due for the seat of a player who left, with the server's easy player."""
    turns.play_stand_in_turn(game_id=game_id, seat_number=seat_number, version=version)


@shared_task(name="games.analyse_game", time_limit=180, soft_time_limit=170)
def analyse_game(game_id: int) -> None:
    """Find and store the best arrangement of every seat's final tiles (once per game); then
    queue the engine's draft-by-draft review (games/review/tasks.py)."""
    key = f"tasks:analysing:{game_id}"
    if not _claim(key, 180):
        logger.info("analyse_game: game %s is being analysed by another task", game_id)
        return
    try:
        found = analysis.best_arrangements(game_id=game_id)
        if found is not None:
            actions.record_analysis(game_id=game_id, analyses=found)
    finally:
        _release(key)
    if found is not None:
        review_tasks.queue_review(game_id)


@shared_task(name="games.send_daily_digests", time_limit=120, soft_time_limit=100)
def send_daily_digests() -> int:
    """Write the digest of every reader whose morning it is now, once a day, and queue it (run
    hourly); return how many readers' morning it is."""
    readers = digest.digest_recipients(timezone.now())
    for email_id in delivery.add_digests(readers):
        send_email.delay(email_id)
    return len(readers)


@shared_task(name="games.sweep_guests", time_limit=300, soft_time_limit=280)
def sweep_guests() -> int:
    """Remove the guests older than GUEST_DAYS with their games (run hourly); how many."""
    return guests.sweep_guests()


@shared_task(name="games.sweep", time_limit=60, soft_time_limit=50)
def sweep() -> dict:
    """Queue the work due now: overdue turns (forced takes included), overdue finishing
    phases, due reminders, computer players and stand-ins that have not acted, vacations that
    ran out, analyses and reviews not made, and emails not sent, at most a batch of each per
    run."""
    now = timezone.now()
    options = {"expires": SWEPT_TASK_EXPIRES}
    overdue = clock.overdue(now, clock.SWEEP_BATCH)
    for game_id, version, phase in overdue:
        task = finish_at_deadline if phase == rules.FINISHING else time_out_turn
        task.apply_async((game_id, version), **options)
    reminders = clock.reminders_due(now, clock.SWEEP_BATCH)
    for game_id in reminders:
        remind_players.apply_async((game_id,), **options)
    stalled = clock.stalled_bots(now, clock.SWEEP_BATCH)
    for game_id, bot_id, version, seat_number in stalled:
        if bot_id is None:  # the seat of a player who left
            stand_in_move.apply_async((game_id, seat_number, version), **options)
        else:
            bot_move.apply_async((game_id, bot_id, version), **options)
    back = clock.vacations_over(now, clock.SWEEP_BATCH)
    for user_id in back:
        end_vacation.apply_async((user_id,), **options)
    unanalysed = clock.analyses_due(now, clock.SWEEP_BATCH)
    for game_id in unanalysed:
        analyse_game.apply_async((game_id,), **options)
    unreviewed = reviews.reviews_due(now, clock.SWEEP_BATCH)
    for game_id in unreviewed:
        review_tasks.queue_review(game_id, **options)
    emails = outbox.due(now, outbox.SWEEP_BATCH)
    for email_id in emails:
        send_email.apply_async((email_id,), **options)
    health.record_sweep()  # `manage.py health --beat` checks that the clock runs
    found = {
        "overdue": len(overdue),
        "reminders": len(reminders),
        "bots": len(stalled),
        "vacations": len(back),
        "analyses": len(unanalysed),
        "reviews": len(unreviewed),
        "emails": len(emails),
    }
    if any(found.values()):
        logger.info("sweep: %s", ", ".join(f"{count} {what}" for what, count in found.items()))
    return found


# --- one copy at a time ------------------------------------------------------------------------


def _claim(key: str, seconds: int) -> bool:
    """Claim `key` in the shared cache for at most `seconds` (the task's time limit); return
    False when a copy of the task holds it. Without the cache the task runs (its own checks
    still make a late copy harmless)."""
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
