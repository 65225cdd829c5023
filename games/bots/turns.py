"""Computer players on the platform: which bot should act now, and playing its moves.

A bot is a user with a `bot_level` (accounts.User); its strategy is games/rules/bots.py. It
never takes a shortcut: every move goes through `actions.play`, as a person's does, so events,
versions, pushes and emails are the same.

When bots act:

- after a committed change that hands a bot something to do (`wake`, called from
  games/side_effects.py): the game started or a turn passed and it is now a bot's turn to draft;
  the pool ran out and bots must finish; the server took a column's last tile for a bot (it may
  rearrange). `wake` queues the task `games.bot_move` with a short countdown
  (settings.BOT_MOVE_DELAY, so people see the bot act; 0 in tests). Arranging and pending drafts
  never wake a bot: only the changes that pass the turn do.
- the sweep (games/tasks.py) queues the same task for any bot whose turn or finishing phase has
  waited longer than BOT_SWEEP_GRACE (a lost task), so a game of bots alone always ends.

`play_bot_turn` plans on the state as it is (outside any transaction: the solver may think for a
second), then applies each action with the version it planned on. If the game moved on in a way
that makes the plan stale, `actions.play` refuses it and the bot plans again from the new state,
so a task that runs twice, late, or after the game has moved does only what is still due.
"""

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q

from accounts.models import User
from games import rules
from games.models import Game, Seat
from games.play import actions
from games.play.errors import ActionRefused
from games.rules import bots as strategies
from games.state_store import load_state, read_game

logger = logging.getLogger(__name__)


# How long a bot's turn (or its finishing) may wait before the sweep queues its move again.
BOT_SWEEP_GRACE = timedelta(seconds=60)


# A bot plans again at most this many times in one task (each time the game moved under it).
MAX_PLANS = 5


# Decision time limits of the strong bot on the platform (seconds).
STRONG_OPTIONS = {"draft_time": 1.0, "arrange_time": 0.5, "finish_time": 3.0, "deny": 0.5}


# Rules events that hand the turn (or the finishing phase) to someone: only these wake bots.
TURN_PASSING = {"confirm_draft", "take_last", "started"}


def strategy(level: str) -> strategies.Bot:
    options = getattr(settings, "BOT_STRONG_OPTIONS", STRONG_OPTIONS) if level == "strong" else {}
    return strategies.make_bot(level, **options)


def bots_to_wake(
    game_id: int, *, kind: str, seat: int | None, forced_take_due: bool
) -> list[tuple[int, int]]:
    """Return (bot user id, game version) of the bots that the change just committed (`kind`
    by `seat`) hands something to do, read from the database. One query; none for a change that
    passes nothing. (A rules event knows it without a query: `due_after`.)"""
    if kind not in TURN_PASSING:
        return []
    rows = Seat.objects.filter(game_id=game_id, user__bot_level__isnull=False).values_list(
        "number",
        "user_id",
        "finished",
        "game__status",
        "game__phase",
        "game__current_seat",
        "game__version",
    )
    return _due(rows, kind=kind, seat=seat, forced_take_due=forced_take_due)


def due_after(
    game: Game, seats: list[Seat], *, kind: str, seat: int | None, forced_take_due: bool
) -> list[tuple[int, int]]:
    """`bots_to_wake` for a change in the making: `game` and `seats` (with their users) as the
    transaction that changes them leaves them. No query: a game without bots costs nothing."""
    if kind not in TURN_PASSING:
        return []
    rows = [
        (s.number, s.user_id, s.finished, game.status, game.phase, game.current_seat, game.version)
        for s in seats
        if s.user.bot_level is not None
    ]
    return _due(rows, kind=kind, seat=seat, forced_take_due=forced_take_due)


def _due(rows, *, kind: str, seat: int | None, forced_take_due: bool) -> list[tuple[int, int]]:
    due = []
    for number, user_id, finished, status, phase, current, version in rows:
        if status != Game.Status.PLAYING or finished:
            continue
        drafting_turn = phase == rules.DRAFTING and current == number and not forced_take_due
        took_last = kind == "take_last" and seat == number
        if drafting_turn or phase == rules.FINISHING or took_last:
            due.append((user_id, version))
    return due


def overdue_bots(now, limit: int) -> list[tuple[int, int, int]]:
    """Return (game id, bot user id, version) of bots whose turn or finishing phase began more
    than BOT_SWEEP_GRACE ago and who have still not acted (their task was lost)."""
    grace = getattr(settings, "BOT_SWEEP_GRACE", BOT_SWEEP_GRACE)
    waiting = Q(game__phase=rules.DRAFTING, game__current_seat=F("number")) | Q(
        game__phase=rules.FINISHING, finished=False
    )
    return list(
        Seat.objects.filter(
            waiting,
            user__bot_level__isnull=False,
            game__status=Game.Status.PLAYING,
            game__turn_started_at__lte=now - grace,
        )
        .order_by("game__turn_started_at")
        .values_list("game_id", "user_id", "game__version")[:limit]
    )


_local = threading.local()


def queue_moves(due: list[tuple[int, int, int]]) -> None:
    """Queue `games.bot_move` for each (game id, bot user id, version).

    With eager tasks (tests) a task runs inside the call that queues it, and each bot move
    commits and wakes the next bot: a whole game would nest one call inside another. So a call
    made while an outer one is queueing only adds to the outer one's list, which runs it next.
    """
    from games.tasks import bot_move

    outer = getattr(_local, "queue", None)
    if outer is not None:
        outer.extend(due)
        return
    _local.queue = list(due)
    try:
        countdown = getattr(settings, "BOT_MOVE_DELAY", 1.0)
        while _local.queue:
            args = _local.queue.pop(0)
            try:
                bot_move.apply_async(args, countdown=countdown)
            except Exception:
                logger.exception("Cannot queue the move of bot %s in game %s.", args[1], args[0])
    finally:
        _local.queue = None


def play_bot_turn(*, game_id: int, bot_id: int, version: int | None = None) -> int:
    """Play whatever is due for bot `bot_id` in the game now; return how many actions it applied.

    `version` is the version the caller saw (for the logs): the plan is always made on the
    game as it is when the task runs.
    """
    bot = User.objects.filter(pk=bot_id, bot_level__isnull=False).first()
    if bot is None:
        return 0
    brain = strategy(bot.bot_level)
    applied = 0
    for _ in range(MAX_PLANS):
        try:
            game, seats = read_game(game_id)
        except Game.DoesNotExist:
            return applied
        if not game.is_playing:
            return applied
        seat = next((s for s in seats if s.user_id == bot_id), None)
        if seat is None:
            return applied
        state = load_state(game, seats)
        plan = brain.next_actions(state, seat.number)
        if not plan:
            return applied
        seen = game.version
        try:
            for action in plan:
                played = actions.play(game_id=game_id, user=bot, action=action, seen_version=seen)
                seen = played.game.version
                applied += 1
        except ActionRefused as refusal:
            # The game moved under the plan (or a twin task did the work): look again.
            logger.info("bot %s in game %s: %s; planning again", bot_id, game_id, refusal.code)
            continue
        return applied
    return applied
