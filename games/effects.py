"""The one way a change's side effects leave: after its commit, each on its own.

A state change (games/play/actions/) records what it caused in an `Effects` while it runs,
inside its transaction: live events as plain data, each `push(group, event)` (its kinds and
groups: games/live/changes.py), and the Celery tasks to queue (the forced take, the computer
players' moves, the post-game analysis, the emails of the outbox). `after_commit` hands them to
Django's `transaction.on_commit(..., robust=True)`: the pushes in one batch, in the order they
were recorded, then each task, so that

- nothing leaves for a change that rolled back;
- the pushes of a version leave before its tasks, so a forced take run at once (an eager task
  in the tests) pushes the next version after this one;
- one that fails is logged by Django and stops neither the others nor the change; what a lost
  task would have done, the sweep (games/tasks.py) does within a minute.

Like Zulip's ``send_event_on_commit(realm, event, user_ids)``: one call with a plain dict, and a
new kind of event needs nothing here.

Tasks are queued by their names (`games.bot_move`, ...), so nothing here imports games/tasks.py,
which imports the actions that import this module; the Celery app is the project's, current in
every process (microchip_site/apps.py).
"""

import functools
import threading
from dataclasses import dataclass, field

from celery import current_app
from django.conf import settings
from django.db import transaction

from games.live import pushes as live
from games.live.changes import Change
from games.models import Event, Game, Seat
from infra.outbox import SEND_TASK


@dataclass(frozen=True)
class Task:
    """A Celery task to queue, by name, with its arguments."""

    name: str
    args: tuple
    countdown: float | None = None

    def queue(self) -> None:
        _queue_in_turn(self)

    def apply_async(self) -> None:
        # A task registered in this process (always, in a worker and in the tests) is applied
        # as its own: eagerly when the tests ask for it. Elsewhere it is sent by name.
        current_app.signature(self.name, args=self.args).apply_async(countdown=self.countdown)


def take_last_tile(game_id: int) -> Task:
    return Task("games.take_last_tile", (game_id,))


def bot_move(game_id: int, bot_id: int, version: int) -> Task:
    # A short pause, so that people see the bot act (0 in the tests).
    delay = getattr(settings, "BOT_MOVE_DELAY", 1.0)
    return Task("games.bot_move", (game_id, bot_id, version), countdown=delay)


def stand_in_move(game_id: int, seat_number: int, version: int) -> Task:
    # The server's easy player, for a player who left: paced like a computer player.
    delay = getattr(settings, "BOT_MOVE_DELAY", 1.0)
    return Task("games.stand_in_move", (game_id, seat_number, version), countdown=delay)


def analyse_game(game_id: int) -> Task:
    return Task("games.analyse_game", (game_id,))


def tournament_game_ended(game_id: int) -> Task:
    # A tournament's table ended: its standings change, and its round may be over
    # (games/tournaments/tasks.py; by name, as the games know nothing of tournaments).
    return Task("tournaments.game_ended", (game_id,))


def send_email(email_id: int) -> Task:
    return Task(SEND_TASK, (email_id,))  # the outbox's task (infra/tasks.py)


@dataclass
class Effects:
    """What one transaction's changes caused, to send on once it commits.

    `pushes` are the live events, (group, event) in the order they were recorded; `tasks` the
    Celery tasks. `game` and `seats` (with their users) are the game as the transaction leaves
    it, `events` the game's new events in order and `online` who was watching, if a change read
    it: the version they make is kept for this process's pages and carried in its push to the
    others (games/live/pushes.py `carrying`), so that no one reads it again. `changes` are the
    versions made, whose pushes games/play/applying.py records as the transaction ends; the
    answer to a move draws the last."""

    game: Game | None = None
    seats: list[Seat] | None = None
    online: frozenset[int] | None = None
    events: list[Event] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    pushes: list[tuple[str, dict]] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)

    def push(self, group: str, event: dict) -> None:
        """Send `event` (a plain dict with its "type") to the open pages in `group` after the
        commit; the same event to the same group once."""
        if (group, event) not in self.pushes:
            self.pushes.append((group, event))


def after_commit(effects: Effects) -> None:
    """Send `effects` on when the current transaction commits (at once outside one): the pushes
    first, in one batch, then each task."""
    if effects.pushes:
        send = functools.partial(send_pushes, list(effects.pushes), effects)
        transaction.on_commit(send, robust=True)
    for task in effects.tasks:
        transaction.on_commit(task.queue, robust=True)


def send_pushes(pushes: list[tuple[str, dict]], effects: Effects) -> None:
    """Hand the pushes to the live layer, the version the transaction made carried with its
    ``game.changed`` event."""
    made: live.Made | None = None
    if effects.game is not None and effects.seats is not None:
        made = (effects.game, effects.seats, effects.events, effects.online)
    live.send(live.carrying(pushes, made))


# With eager tasks (the tests) a task runs inside the call that queues it, and each move of a
# game of bots commits and queues the next: a whole game would nest one call inside another,
# deeper than Python allows. So a task queued while another is being queued in this thread
# waits in the outer call's list, which runs it next.
_local = threading.local()


def _queue_in_turn(task: Task) -> None:
    waiting = getattr(_local, "waiting", None)
    if waiting is not None:
        waiting.append(task)
        return
    _local.waiting = [task]
    try:
        while _local.waiting:
            _local.waiting.pop(0).apply_async()
    finally:
        _local.waiting = None
