"""Celery tasks: thin, by id, named, time-limited; each calls a function of games/actions.py or
games/notifications.py, the same ones the views use.

Every task is safe to run twice, late, or after the player has moved: the game-changing ones
re-check the game under its row lock and are keyed to the version the sweep saw.

Nothing here waits for a deadline with a countdown: Celery beat runs `games.sweep` every minute
(settings.CELERY_BEAT_SCHEDULE) and the sweep queues the work that is due. A lost task, a
restarted worker or an emptied Redis therefore delays a game by one sweep at most.

Beat should run once, but two beats by mistake do no harm: the game-changing tasks are keyed to
versions under the row lock, the reminder is cleared under it, and the two tasks that do slow
work outside any lock (the analysis, the digest email) skip while a copy of themselves runs
(`_claim`). tests/scale/test_two_beats.py runs every periodic task twice at once.
"""

import logging
import smtplib

from django.core.cache import cache
from django.utils import timezone

from games import rules
from games.bots import turns as bots
from games.history import analysis
from games.notices import digest, emails
from games.play import actions, deadlines
from microchip_site import health
from microchip_site.celery import app

logger = logging.getLogger(__name__)

# A task queued by the sweep is dropped if no worker picked it up by then: the next sweep
# queues it again if it is still due, so a backlog never grows with copies.
SWEPT_TASK_EXPIRES = 5 * 60


@app.task(name="games.take_last_tile", time_limit=30, soft_time_limit=20)
def take_last_tile(game_id: int) -> None:
    """Take the last tile of a draw column for the player whose turn begins (idempotent)."""
    actions.take_last_tile(game_id=game_id)


@app.task(name="games.time_out_turn", time_limit=30, soft_time_limit=20)
def time_out_turn(game_id: int, expected_version: int) -> None:
    """Play an overdue turn for its player, if the game is still at `expected_version`."""
    actions.time_out_turn(game_id=game_id, expected_version=expected_version)


@app.task(name="games.finish_at_deadline", time_limit=60, soft_time_limit=50)
def finish_at_deadline(game_id: int, expected_version: int) -> None:
    """Submit every unfinished board of an overdue finishing phase; the game ends."""
    actions.finish_at_deadline(game_id=game_id, expected_version=expected_version)


@app.task(name="games.remind_players", time_limit=30, soft_time_limit=20)
def remind_players(game_id: int) -> None:
    """Send a turn's reminder if it is due (once a turn: the game row remembers)."""
    actions.remind_players(game_id=game_id)


@app.task(name="games.bot_move", time_limit=60, soft_time_limit=50)
def bot_move(game_id: int, bot_id: int, version: int) -> None:
    """Play what is due for a computer player now (idempotent: it plans on the game as it is)."""
    bots.play_bot_turn(game_id=game_id, bot_id=bot_id, version=version)


@app.task(name="games.analyse_game", time_limit=180, soft_time_limit=170)
def analyse_game(game_id: int) -> None:
    """Find and store the best arrangement of every seat's final tiles (once per game)."""
    key = f"tasks:analysing:{game_id}"
    if not _claim(key, 180):
        logger.info("analyse_game: game %s is being analysed by another task", game_id)
        return
    try:
        analysis.analyse_game(game_id=game_id)
    finally:
        _release(key)


@app.task(name="games.sweep", time_limit=60, soft_time_limit=50)
def sweep() -> dict:
    """Queue the work due now: overdue turns (forced takes included), overdue finishing
    phases, due reminders, bots that have not acted, and analyses not made, at most
    deadlines.SWEEP_BATCH of each per run."""
    now = timezone.now()
    options = {"expires": SWEPT_TASK_EXPIRES}
    overdue = deadlines.overdue(now, deadlines.SWEEP_BATCH)
    for game_id, version, phase in overdue:
        task = finish_at_deadline if phase == rules.FINISHING else time_out_turn
        task.apply_async((game_id, version), **options)
    reminders = deadlines.reminders_due(now, deadlines.SWEEP_BATCH)
    for game_id in reminders:
        remind_players.apply_async((game_id,), **options)
    stalled = bots.overdue_bots(now, deadlines.SWEEP_BATCH)
    for game_id, bot_id, version in stalled:
        bot_move.apply_async((game_id, bot_id, version), **options)
    unanalysed = deadlines.analyses_due(now, deadlines.SWEEP_BATCH)
    for game_id in unanalysed:
        analyse_game.apply_async((game_id,), **options)
    health.record_sweep()  # `manage.py health --beat` checks that the clock runs
    if overdue or reminders or stalled or unanalysed:
        logger.info(
            "sweep: %d overdue games, %d reminders, %d bot moves, %d analyses",
            len(overdue),
            len(reminders),
            len(stalled),
            len(unanalysed),
        )
    return {
        "overdue": len(overdue),
        "reminders": len(reminders),
        "bots": len(stalled),
        "analyses": len(unanalysed),
    }


# --- email ------------------------------------------------------------------------------------

# smtplib's errors are OSErrors; so are refused connections and time-outs.
EMAIL_RETRY = {
    "autoretry_for": (smtplib.SMTPException, OSError),
    "retry_backoff": 30,
    "retry_backoff_max": 30 * 60,
    "retry_jitter": True,
    "max_retries": 8,
}


@app.task(name="games.send_notice", time_limit=60, soft_time_limit=50, **EMAIL_RETRY)
def send_notice(kind: str, game_id: int, user_id: int, version: int = 0, data=None) -> None:
    """Send one email about a game to one user, if still wanted and true when it runs."""
    emails.send_notice(kind=kind, game_id=game_id, user_id=user_id, version=version, data=data)


@app.task(name="games.send_daily_digests", time_limit=120, soft_time_limit=100)
def send_daily_digests() -> int:
    """Queue the digest of every reader whose morning it is now (run hourly by beat)."""
    recipients = digest.digest_recipients(timezone.now())
    for user_id, local_date in recipients:
        send_digest.delay(user_id, local_date)
    return len(recipients)


@app.task(name="games.send_digest", time_limit=60, soft_time_limit=50, **EMAIL_RETRY)
def send_digest(user_id: int, local_date: str) -> None:
    """Send one user's digest of the games waiting for them (once for each local date)."""
    key = f"tasks:digest:{user_id}:{local_date}"
    if not _claim(key, 60):
        logger.info("send_digest: another task is sending user %s's digest", user_id)
        return
    try:
        digest.send_digest(user_id=user_id, local_date=local_date)
    finally:
        _release(key)


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
