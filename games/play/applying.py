"""The machinery of a change: the locked game, and one rules action applied to it.

`changing(game_id)` opens the transaction of a change and locks the game row with its seats in
order (`SELECT ... FOR UPDATE OF` both, one statement for a game in play: games/state_store.py
`lock_game_and_seats` says why that is safe; on SQLite the IMMEDIATE transaction locks the
database instead); what the change causes is collected on the `Table` and sent on after the commit
(games/effects.py). `apply_action` applies one rules action to it, step by named step: the
rules (and the transition they report: whose move it is now), persistence, the clock, the
notices, and the work it hands on (a forced take, computer players to wake, the analysis).
"""

import contextlib
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, overload

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import effects, presence, rules
from games.effects import Effects, Task
from games.history import ratings
from games.live.changes import Change, notice_event, user_group
from games.models import Event, ExpelVote, Game, Seat
from games.notices import delivery
from games.notices.notice import FINISH, GAME_OVER, YOUR_TURN, Notice
from games.play import clock
from games.play.errors import ActionRefused
from games.rules import ConfirmDraft, Draft, Finish, RuleError, TakeLast, UndoDraft, ahead
from games.state_store import (
    GAME_STATE_FIELDS,
    SEAT_STATE_FIELDS,
    load_state,
    lock_game_and_seats,
    store_changes,
)

# Actions that change the pool or the turn: checked against Game.pool_version.
DRAFTING_ACTIONS = (Draft, ConfirmDraft, UndoDraft, TakeLast)
# The game's columns that a rules action may change (only those that did are written), and the
# seats' results, written when the game ends.
MOVE_GAME_FIELDS = (
    "version",
    "pool_version",
    "status",
    "ended_at",
    "turn_started_at",
    "deadline",
    "remind_at",
    *GAME_STATE_FIELDS,
)
RESULT_FIELDS = ("score", "place", "chip_tiles", "chip_value", "penalty_tiles")
# A player's own move of these ends their timeouts in a row (and the vote against them).
ON_TIME = (Draft, ConfirmDraft, UndoDraft, Finish)
# A seat's clock (games/play/clock.py): written only for the seats whose clock changed.
CLOCK_FIELDS = ("bank", "deadline", "remind_at")
# The rules events that add to the move log (games/move_log.py): their pushes redraw it.
LOGGED = {"confirm_draft", "take_last", "finish"}


@dataclass
class Table:
    """A game locked for one transaction: its row, its seats in order (with their users), and
    what the changes made to it so far have caused."""

    game: Game
    seats: list[Seat]
    effects: Effects = field(default_factory=Effects)
    # Which seated users had the game open when the change first asked (an email held back),
    # kept for the answer's drawing of who is watching: one presence read a request.
    online: frozenset[int] | None = None

    def seat_of(self, user: User) -> Seat | None:
        return next((seat for seat in self.seats if seat.user_id == user.pk), None)

    def watching(self, game_id: int, user_ids: Iterable[int]) -> set[int]:
        """presence.watching, read for every seat of this game at once and then kept."""
        wanted, seated = set(user_ids), {seat.user_id for seat in self.seats}
        if game_id != self.game.pk or not wanted <= seated:
            return presence.watching(game_id, wanted)
        if self.online is None:
            self.online = frozenset(presence.watching(game_id, seated))
        return wanted & self.online

    @property
    def users(self) -> dict[int, User]:
        return {seat.user_id: seat.user for seat in self.seats}


@overload
def changing(
    game_id: object, *, missing_ok: Literal[False] = False
) -> contextlib.AbstractContextManager[Table]: ...
@overload
def changing(
    game_id: object, *, missing_ok: bool
) -> contextlib.AbstractContextManager[Table | None]: ...
def changing(
    game_id: object, *, missing_ok: bool = False
) -> contextlib.AbstractContextManager[Table | None]:
    """Open a change of the game: a transaction with the game locked. Its effects are sent on
    after the commit. A game that does not exist is refused, or with `missing_ok` (the server's
    own work, queued before the game was deleted) given as None. `game_id` is what the caller
    was given: what is not an id is no game."""
    return _changing(game_id, missing_ok=missing_ok)


@contextlib.contextmanager
def _changing(game_id: object, *, missing_ok: bool) -> Iterator[Table | None]:
    with transaction.atomic():
        try:
            game, seats = lock_game_and_seats(game_id)
        except (ValueError, TypeError):  # not an id at all
            game = None
        if game is None:
            if not missing_ok:
                raise ActionRefused(_("There is no such game."), code="no_such_game")
            yield None
            return
        table = Table(game, seats)
        yield table
        send_after_commit(table)


def send_after_commit(table: Table) -> None:
    """Send on what the changes to the table caused, when the transaction commits; the pushes
    draw the game as the transaction leaves it."""
    done = table.effects
    done.game, done.seats = table.game, table.seats
    if done.changes and table.online is None:
        # Who is watching is drawn on every page (the online dots): read once here, it travels
        # with the pushes to every process (games/drawing/cache/) and draws the mover's answer.
        table.watching(table.game.pk, [seat.user_id for seat in table.seats])
    done.online = table.online
    # Each version's own pushes first (complete only now: a seat handed over amends its change).
    done.pushes[:0] = [push for change in done.changes for push in change.pushes()]
    effects.after_commit(done)


def record(
    game: Game,
    kind: str,
    *,
    seat: int | None = None,
    actor: User | None = None,
    cause: str = Event.Cause.PLAYER,
    action: dict | None = None,
    data: dict | None = None,
) -> Event:
    """Append the next event and bump the version (the caller saves the game)."""
    game.version += 1
    return Event.objects.create(
        game=game,
        number=game.version,
        kind=kind,
        seat=seat,
        actor=actor,
        cause=cause,
        action=action,
        data=data or {},
    )


def notify(table: Table, notices: list[Notice], users: dict[int, User] | None = None) -> None:
    """Tell the notices' recipients: their pages after the commit, and the email of those who
    may get one written to the outbox now, in this transaction. `users` are recipients who have
    no seat at the table (an invitee)."""
    if not notices:
        return
    users = {**table.users, **(users or {})}
    for notice in notices:
        for user_id in notice.user_ids:
            if user_id in users:
                event = notice_event(notice.game_id, notice.kind)
                table.effects.push(user_group(user_id), event)
    written = delivery.add_notices(notices, users, table.seats, watching=table.watching)
    table.effects.tasks += [effects.send_email(pk) for pk in written]


# --- one rules action --------------------------------------------------------------------------


def apply_action(
    table: Table,
    seat: Seat,
    action: rules.Action,
    *,
    actor: User | None,
    cause: str,
    answered_page: str = "",
) -> Event | None:
    """Apply a checked-in action of `seat` to the locked game: the rules, persistence, the
    clock, the notices and the work it hands on. Only what the action changed is written: a
    placement rewrites one board, not the pool and every seat. An action that changes nothing
    (clearing an empty board) is accepted and leaves no trace: no event, no new version."""
    game, seats = table.game, table.seats
    before = load_state(game, seats)
    try:
        after = before.apply(action, seat.number)
    except RuleError as error:
        raise ActionRefused.from_rule_error(error) from None
    if after is before:  # the rules' way to say "nothing changed"
        return None
    moved = rules.transition(before, after)

    unsaved = {name: getattr(game, name) for name in MOVE_GAME_FIELDS}
    changed = store_changes(game, seats, after)
    event = record(
        game, action.type, seat=seat.number, actor=actor, cause=cause, action=action.to_json()
    )
    if isinstance(action, DRAFTING_ACTIONS):
        game.pool_version = game.version
    now = timezone.now()
    clocked = clock.follow(game, seats, seat, action, moved, now)
    if moved.ended:
        _end(game, seats, after, now)
    if cause == Event.Cause.PLAYER and seat.number in changed:  # they act on what they see
        seat.seen_version = game.version
        changed[seat.number] = [*changed[seat.number], "seen_version"]
    for number in clocked & set(changed):  # written with the board (a finish stops a clock)
        changed[number] = [*changed[number], *CLOCK_FIELDS]
    _save(game, seats, unsaved, changed, ended=moved.ended)
    if cause == Event.Cause.PLAYER and seat.timeouts_in_row and isinstance(action, ON_TIME):
        _back_in_time(seat)
    if not moved.ended:  # the end writes every seat whole
        save_clocks(seats, clocked - set(changed))

    table.effects.events.append(event)
    table.effects.changes.append(
        _change(
            table,
            seat=seat,
            action=action,
            cause=cause,
            after=after,
            moved=moved,
            changed=changed,
            clocked=clocked,
            answered_page=answered_page,
        )
    )
    notify(table, _notices(table, moved))
    table.effects.tasks += _handed_on(table, seat, action, moved)
    if moved.new_turn and moved.current is not None:
        _draft_ahead(table, seats[moved.current], after, answered_page)
    return event


def _save(
    game: Game, seats: list[Seat], unsaved: dict, changed: dict[int, list[str]], *, ended: bool
) -> None:
    """Write what the action changed: the game's changed columns, and each changed board and
    tray (with its board version), or at the end every seat with its result."""
    for seat in seats:
        if seat.number in changed or ended:
            seat.board_version = game.version
    game.save(update_fields=[name for name, was in unsaved.items() if getattr(game, name) != was])
    if ended:
        Seat.objects.bulk_update(
            seats, [*SEAT_STATE_FIELDS, "board_version", *RESULT_FIELDS, *CLOCK_FIELDS]
        )
        for seat in seats:  # the last move counts as seen by its player (not the others' seen:
            # a heartbeat may have moved theirs on since they were read)
            if "seen_version" in changed.get(seat.number, ()):
                Seat.objects.filter(pk=seat.pk).update(seen_version=seat.seen_version)
        return
    for seat in seats:  # one board or tray at most: a plain UPDATE of what changed
        if seat.number in changed:
            names = [*changed[seat.number], "board_version"]
            Seat.objects.filter(pk=seat.pk).update(**{name: getattr(seat, name) for name in names})


def _back_in_time(seat: Seat) -> None:
    """The player moved by themselves after timeouts in a row: the row, and any vote to hand
    their seat to the server (games/play/leaving.py), are over. Two statements, only then."""
    seat.timeouts_in_row = 0
    Seat.objects.filter(pk=seat.pk).update(timeouts_in_row=0)
    ExpelVote.objects.filter(seat_id=seat.pk).delete()


def save_clocks(seats: list[Seat], numbers: Collection[int]) -> None:
    """Write the clocks of the seats `numbers`: one UPDATE for one seat (a Fischer bank after a
    draft), one for several (the finishing phase begins)."""
    chosen = [seat for seat in seats if seat.number in numbers]
    if len(chosen) == 1:
        seat = chosen[0]
        Seat.objects.filter(pk=seat.pk).update(
            **{name: getattr(seat, name) for name in CLOCK_FIELDS}
        )
    elif chosen:
        Seat.objects.bulk_update(chosen, list(CLOCK_FIELDS))


def _end(game: Game, seats: list[Seat], state: rules.GameState, now: datetime) -> None:
    """Give every seat its result and rate the game (the caller saves them)."""
    for result in state.results():
        seat = seats[result.seat]
        seat.score = result.score
        seat.place = result.place
        seat.chip_tiles = result.chip_tiles
        seat.chip_value = result.chip_value
        seat.penalty_tiles = result.penalty_tiles
    game.status = Game.Status.ENDED
    game.ended_at = now
    # Part of the ending transaction; rates the game once however often the end is processed.
    ratings.rate_game(game=game, seats=seats)


def _change(
    table: Table,
    *,
    seat: Seat,
    action: rules.Action,
    cause: str,
    after: rules.GameState,
    moved: rules.Transition,
    changed: dict[int, list[str]],
    clocked: set[int],
    answered_page: str,
) -> Change:
    """What `seat`'s `action` (made by `cause`) touched on anyone's page (games/live/changes.py),
    from the state it left (`after`), the transition it made, the seats whose rows it `changed`
    and those whose clocks it started or stopped (`clocked`): the boards and trays to redraw,
    and the seats whose heads alone changed (a clock, the turn's marker)."""
    redrawn, heads = set(changed), set(clocked)
    drafting = isinstance(action, DRAFTING_ACTIONS)
    if drafting:  # the drafter's pending tile, and the turn's marker on the next one's head
        redrawn.add(seat.number)
        if after.current is not None:
            heads.add(after.current)
    if moved.ended:
        redrawn = {s.number for s in table.seats}
    user_of = [s.user_id for s in table.seats]
    left = {s.number for s in table.seats if s.left}  # the server plays their seats
    return Change(
        game_id=table.game.pk,
        version=table.game.version,
        seats=tuple(sorted(redrawn)),
        heads=tuple(sorted(heads - redrawn)),
        pool=drafting or moved.turn_passed,
        ended=moved.ended,
        kind=action.type,
        answered_page=answered_page,
        mover=seat.user_id if answered_page else None,
        # Whose count of games waiting for them (the nav badge) changed, and how.
        waiting_changed=tuple(
            (user_of[number], number in moved.waiting)
            for number in sorted(moved.waiting_changed - left)
        ),
        logged=action.type in LOGGED,
        concerns=() if cause in (Event.Cause.PLAYER, Event.Cause.STAND_IN) else (seat.number,),
    )


def _notices(table: Table, moved: rules.Transition) -> list[Notice]:
    """Who hears of the transition: the next drafter (not for a forced take: that is the
    server's move), everyone still to finish, or everyone at the end. A player who left the
    game hears only of its end: the server plays their seat."""
    game, user_of = table.game, [s.user_id for s in table.seats]
    playing = {s.number for s in table.seats if not s.left}
    if moved.new_turn and not moved.forced_take_due:
        drafter = moved.current
        if drafter is None or drafter not in playing:
            return []
        if table.seats[drafter].queue.tiles:
            return []  # their queued draft is taken now, and they are told what it did
        return [Notice(YOUR_TURN, game.pk, (user_of[drafter],), game.version)]
    if moved.finishing_began:
        unfinished = tuple(user_of[number] for number in sorted(moved.waiting & playing))
        return [Notice(FINISH, game.pk, unfinished, game.version)]
    if moved.ended:
        return [Notice(GAME_OVER, game.pk, tuple(user_of), game.version)]
    return []


def _handed_on(
    table: Table, seat: Seat, action: rules.Action, moved: rules.Transition
) -> list[Task]:
    """The work the change hands on: the forced take now due, the post-game analysis, and the
    moves of the computer players it gives something to do."""
    game = table.game
    tasks = []
    if moved.forced_take_due:
        tasks.append(effects.take_last_tile(game.pk))
    if moved.ended:
        tasks.append(effects.analyse_game(game.pk))
        if game.tournament_round_id is not None:
            tasks.append(effects.tournament_game_ended(game.pk))
    woken = set()
    if moved.turn_passed and not moved.ended:  # a turn (or the finishing phase) begins
        woken = set(moved.waiting)
        if moved.forced_take_due:  # the server drafts first; the bot is woken after that
            woken.discard(moved.current)
    if isinstance(action, TakeLast):  # the server gave a tile: its owner may arrange it
        woken.add(seat.number)
    return tasks + wake_bots(table, woken)


def _draft_ahead(table: Table, seat: Seat, state: rules.GameState, answered_page: str) -> None:
    """The turn of `seat` begins: if its player queued their draft (games/rules/ahead.py), draft
    the first queued tile still in the draw column for them, in this same transaction, and
    confirm it if they asked. The queue is used up either way ("confirm it for me" is kept),
    with what it did and at which version, for their page. With none left, or a draft left to
    confirm, the player gets their "your move" saying so; a confirmed one needs none.

    A queue is accepted only for a turn that does not begin with a forced take; should one all
    the same, the server takes the last tile (games.take_last_tile) and the queue just goes."""
    queue = seat.queue
    if not queue.tiles or seat.left:  # a player who left: the server's stand-in drafts
        return
    game = table.game
    forced = state.forced_action() is not None
    tile = None if forced else ahead.queued_draft(state, seat.number, queue.tiles)
    cause = Event.Cause.QUEUED
    if tile is not None:
        apply_action(table, seat, Draft(tile), actor=None, cause=cause, answered_page=answered_page)
    seat.queued_draft = {"tiles": [], "confirm": queue.confirm}
    if not forced:
        seat.queued_draft.update(took=tile, at=game.version)
    Seat.objects.filter(pk=seat.pk).update(queued_draft=seat.queued_draft)
    if forced:
        return
    if tile is not None and queue.confirm:
        apply_action(
            table, seat, ConfirmDraft(), actor=None, cause=cause, answered_page=answered_page
        )
        return
    what = {"queued": tile, "column": state.draw_column()}
    notify(table, [Notice(YOUR_TURN, game.pk, (seat.user_id,), game.version, what)])


def wake_bots(table: Table, numbers: Collection[int]) -> list[Task]:
    """The moves to queue of the computer players among the seats `numbers`, and of the
    server's stand-in for the seats among them whose players left (games/play/leaving.py)."""
    game = table.game
    return [
        effects.stand_in_move(game.pk, s.number, game.version)
        if s.left
        else effects.bot_move(game.pk, s.user_id, game.version)
        for s in table.seats
        if s.number in numbers and (s.user.is_bot or s.left) and not s.finished
    ]
