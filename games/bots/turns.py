"""Computer players on the platform: playing what is due for a bot now.

A bot is a user with a `bot_level` (accounts/bots.py makes the accounts); its strategy is
games/rules/bots.py. It never takes a shortcut: every move goes through `actions.play`, as a
person's does, so events, versions, pushes and emails are the same.

When bots act:

- after a committed change that hands a bot something to do (games/play/applying.py asks the
  rules' transition): the game started or a turn passed and it is now a bot's turn to draft;
  the pool ran out and bots must finish; the server took a column's last tile for a bot (it may
  rearrange). The change queues the task `games.bot_move` with a short countdown
  (settings.BOT_MOVE_DELAY, so people see the bot act; 0 in tests). Arranging and pending drafts
  never wake a bot: only the changes that pass the turn do.
- the sweep (games/tasks.py, games/play/clock.py `stalled_bots`) queues the same task for any
  bot whose turn or finishing phase has waited longer than a minute (a lost task), so a game of
  bots alone always ends.

`play_bot_turn` plans on the state as it is (outside any transaction: the solver may think for a
second), then applies each action with the version it planned on. If the game moved on in a way
that makes the plan stale, `actions.play` refuses it and the bot plans again from the new state,
so a task that runs twice, late, or after the game has moved does only what is still due.

The server's stand-in for a player who left the game (games/play/leaving.py) plays the same
way, with the easy strategy, on that seat (`play_stand_in_turn`), through
`actions.play_stand_in`: woken by the same changes, and by the sweep's `stalled_stand_ins`.
"""

import logging

from django.conf import settings

from accounts.models import User
from games.models import Game
from games.play import actions
from games.play.errors import ActionRefused
from games.rules import bots as strategies
from games.state_store import load_state, read_game

logger = logging.getLogger(__name__)

# A bot plans again at most this many times in one task (each time the game moved under it).
MAX_PLANS = 5
# Decision time limits of the strong bot on the platform (seconds).
STRONG_OPTIONS = {"draft_time": 1.0, "arrange_time": 0.5, "finish_time": 3.0, "deny": 0.5}
# The expert's budgets on the platform: counted in work (docs/engine.md), the engine's own
# defaults, which spend at most about 2 s of CPU a draft (0.2 s on average with two players).
# `time_cap` is the safety net of one search, in CPU seconds: with the task's MAX_PLANS searches
# at most, and the arranging after each, a bot_move task stays well inside its time limit
# (games/tasks.py) even on a loaded worker.
EXPERT_OPTIONS = {"iterations": 3000, "arrange_nodes": 5000, "time_cap": 6.0}


def strategy(level: str) -> strategies.Bot:
    """The strategy of a level, with the platform's limits: every level takes the strong
    player's time for its final arrangement (the solver's best, rules/bots.py)."""
    options = getattr(settings, "BOT_STRONG_OPTIONS", STRONG_OPTIONS)
    if level == "strong":
        return strategies.make_bot(level, **options)
    if level == "expert":
        expert = getattr(settings, "BOT_EXPERT_OPTIONS", EXPERT_OPTIONS)
        return strategies.make_bot(level, finish_time=options["finish_time"], **expert)
    return strategies.make_bot(level, finish_time=options["finish_time"])


def play_bot_turn(*, game_id: int, bot_id: int, version: int | None = None) -> int:
    """Play whatever is due for bot `bot_id` in the game now; return how many actions it applied.

    `version` is the version the caller saw (for the logs): the plan is always made on the
    game as it is when the task runs.
    """
    bot = User.objects.filter(pk=bot_id, bot_level__isnull=False).first()
    if bot is None:
        return 0

    def apply(action, seen):
        return actions.play(game_id=game_id, user=bot, action=action, seen_version=seen)

    return _play(game_id, lambda seat: seat.user_id == bot_id, strategy(bot.bot_level), apply)


def play_stand_in_turn(*, game_id: int, seat_number: int, version: int | None = None) -> int:
    """Play whatever is due now for the seat `seat_number`, whose player left the game, with
    the easy strategy; return how many actions were applied. Nothing while its player plays
    it."""

    def apply(action, seen):
        return actions.play_stand_in(
            game_id=game_id, seat_number=seat_number, action=action, seen_version=seen
        )

    def is_it(seat):
        return seat.number == seat_number and bool(seat.left)

    return _play(game_id, is_it, strategy(STAND_IN_LEVEL), apply)


# The server plays the seat of a player who left as its easy computer player does.
STAND_IN_LEVEL = "easy"


def _play(game_id: int, is_it, brain: strategies.Bot, apply) -> int:
    """Plan on the game as it is with `brain` for the seat `is_it` picks, apply the plan one
    action at a time with `apply(action, seen_version)`, and plan again (at most MAX_PLANS
    times) when the game moved under the plan."""
    applied = 0
    for _ in range(MAX_PLANS):
        try:
            game, seats = read_game(game_id)
        except Game.DoesNotExist:
            return applied
        if not game.is_playing:
            return applied
        seat = next((s for s in seats if is_it(s)), None)
        if seat is None:
            return applied
        state = load_state(game, seats)
        plan = brain.next_actions(state, seat.number)
        if not plan:
            return applied
        seen = game.version
        try:
            for action in plan:
                seen = apply(action, seen).game.version
                applied += 1
        except ActionRefused as refusal:
            # The game moved under the plan (or a twin task did the work): look again.
            logger.info(
                "seat %s in game %s: %s; planning again", seat.number, game_id, refusal.code
            )
            continue
        return applied
    return applied
