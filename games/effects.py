"""The one way a change's side effects leave: after its commit, each on its own.

A state change (games/play/actions.py) collects what it caused in an `Effects` while it runs,
inside its transaction: the versions to push to open pages, the seats of a waiting table to
redraw on its waiting-room pages, the notices to push to their recipients' pages, the badges to
count again, a player's queued draft to redraw on their own pages, and the Celery tasks to
queue (the forced take, the computer players' moves, the post-game analysis, the emails of the
outbox). `after_commit` hands each to Django's `transaction.on_commit(..., robust=True)`, in
that order:

- nothing leaves for a change that rolled back;
- the pushes of a version leave before its tasks, so a forced take run at once (an eager task
  in the tests) pushes the next version after this one;
- one that fails is logged by Django and stops neither the others nor the change; what a lost
  task would have done, the sweep (games/tasks.py) does within a minute.

Tasks are queued by their names (`games.bot_move`, ...), so nothing here imports games/tasks.py,
which imports the actions that import this module; the Celery app is the project's, current in
every process (microchip_site/apps.py).
"""

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from celery import current_app
from django.conf import settings
from django.db import transaction

from games.live import pushes
from games.live.changes import Change, LobbyChange
from games.notices.notice import Notice
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

    `game` and `seats` (with their users) are the game as the transaction leaves it: the pushes
    of this process draw from them instead of reading the game again (games/live/pushes.py).
    `users` are the notices' recipients by id, for drawing their notices. `events` are the
    game's new events the changes appended, in order (the move log need not read them)."""

    game: object = None
    seats: list | None = None
    online: frozenset[int] | None = None  # who was watching, if a change read it
    changes: list[Change] = field(default_factory=list)
    lobby: list[LobbyChange] = field(default_factory=list)  # a waiting table's seats changed
    events: list = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    users: dict = field(default_factory=dict)
    badges: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    # Seats whose queued draft their player changed (the seat's number, the page that did it):
    # that player's other pages of the game redraw it; it is nobody else's business.
    queues: list[tuple[int, str]] = field(default_factory=list)
    # Messages of the table talk written or deleted (games/chat.py `message_event`).
    chats: list[dict] = field(default_factory=list)
    # Ended games whose rematch was offered or called off: their pages redraw the offer.
    rematches: list[int] = field(default_factory=list)

    def push_change(self) -> None:
        for change in self.changes:
            pushes.game_changed(
                change, game=self.game, seats=self.seats, events=self.events, online=self.online
            )

    def push_lobby(self) -> None:
        for change in self.lobby:
            pushes.lobby_changed(change)

    def push_notices(self) -> None:
        pushes.push_notices(self.notices, users=self.users, game=self.game, seats=self.seats)

    def recount_badges(self) -> None:
        for game_id, user_ids in self.badges:
            pushes.refresh_badges(game_id, user_ids)

    def push_chats(self) -> None:
        for message in self.chats:
            pushes.chat_changed(self.game, message)

    def push_rematches(self) -> None:
        for game_id in dict.fromkeys(self.rematches):
            pushes.rematch_changed(game_id)

    def push_queues(self) -> None:
        for number, answered_page in self.queues:
            pushes.queue_changed(self.game, self.seats, number, answered_page=answered_page)


def after_commit(effects: Effects) -> None:
    """Send `effects` on when the current transaction commits (at once outside one)."""
    sends: list[Callable[[], None]] = []
    if effects.changes:
        sends.append(effects.push_change)
    if effects.lobby:
        sends.append(effects.push_lobby)
    if effects.notices:
        sends.append(effects.push_notices)
    if effects.badges:
        sends.append(effects.recount_badges)
    if effects.queues:
        sends.append(effects.push_queues)
    if effects.chats:
        sends.append(effects.push_chats)
    if effects.rematches:
        sends.append(effects.push_rematches)
    sends += [task.queue for task in effects.tasks]
    for send in sends:
        transaction.on_commit(send, robust=True)


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
