"""Every change to a game, one function each, in the style of Zulip's zerver/actions.

Each public function is one transaction that locks the game row (`select_for_update`; on SQLite
the IMMEDIATE transaction does the same), checks the request with the rules package and against
the version the player saw, writes the rows, appends the events, and schedules its side effects
with `transaction.on_commit`, so nothing is pushed or queued for a change that rolled back.
Views, consumers and tasks call these functions and nothing else writes a game.
"""

import random
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.bots import NoFreeBot, free_bot
from accounts.models import User
from games import effects as side_effects
from games import rules, selectors
from games.history import ratings
from games.live.changes import Change
from games.models import MAX_TIME_PER_MOVE, MIN_TIME_PER_MOVE, Event, Game, Invitation, Seat
from games.notices.notice import (
    FINISH,
    GAME_OVER,
    GAME_STARTED,
    INVITATION,
    REMINDER,
    TIMEOUT,
    YOUR_TURN,
    Notice,
)
from games.play.deadlines import reminder_time
from games.play.errors import ActionRefused, StaleVersion
from games.rules import ConfirmDraft, Draft, RuleError, TakeLast, UndoDraft
from games.rules.bots import LEVELS as BOT_LEVELS
from games.state_store import (
    GAME_STATE_FIELDS,
    SEAT_STATE_FIELDS,
    load_state,
    lock_game,
    seats_in_order,
    store_changes,
    store_state,
)

# Actions that change the pool or the turn: checked against Game.pool_version.
DRAFTING_ACTIONS = (Draft, ConfirmDraft, UndoDraft, TakeLast)
MAX_NAME_LENGTH = 60
# The game's columns that a rules action may change (`_apply` writes those that did), and the
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


@dataclass(frozen=True)
class Played:
    """What an accepted action changed, for the caller to redraw."""

    game: Game
    seat: Seat | None
    events: list[Event]
    seats: list[Seat]  # every seat, in order, as the change left them (with their users)
    change: Change | None  # what the last event touched


# --- the lobby ---------------------------------------------------------------------------------


def create_game(
    *,
    creator: User,
    player_count: int,
    time_per_move,
    rated: bool = True,
    access: str = Game.Access.OPEN,
    name: str = "",
    invitees: tuple[str, ...] = (),
    bots: tuple[str, ...] = (),
) -> Game:
    """Open a new table with its creator in the first seat; invite `invitees` by username.

    `bots` are the levels of computer players to seat at once ("easy", "strong"); each joins
    through `join_game`, like a person with the invitation link, so a table full of bots and
    its creator starts at once."""
    name = (name or "").strip()
    if not 2 <= player_count <= 5:
        raise ActionRefused("A game has 2 to 5 players.", code="bad_player_count")
    if not MIN_TIME_PER_MOVE <= time_per_move <= MAX_TIME_PER_MOVE:
        raise ActionRefused("The time per move must be from 1 hour to 14 days.", code="bad_time")
    if access not in Game.Access.values:
        raise ActionRefused("Choose an open game or one by invitation.", code="bad_access")
    if len(name) > MAX_NAME_LENGTH:
        raise ActionRefused(f"A game's name has at most {MAX_NAME_LENGTH} characters.")
    if len(bots) > player_count - 1:
        raise ActionRefused("Leave a seat for yourself: too many computer players.", code="bots")
    if any(level not in BOT_LEVELS for level in bots):
        raise ActionRefused("There is no such computer player.", code="bots")
    with transaction.atomic():
        game = Game.objects.create(
            name=name,
            created_by=creator,
            player_count=player_count,
            time_per_move=time_per_move,
            rated=rated,
            access=access,
        )
        Seat.objects.create(game=game, user=creator, number=0)
        _record(game, "created", actor=creator, data={"player_count": player_count})
        for username in invitees:
            _invite(game, creator, username)
        game.save(update_fields=["version"])
        for level in bots:
            try:
                bot = free_bot(level, not_at_game=game.pk)
            except NoFreeBot as error:
                raise ActionRefused(str(error), code="bots") from None
            join_game(game_id=game.pk, user=bot, invite_token=game.invite_token)
        game.refresh_from_db()
    return game


def invite_player(*, game_id: int, inviter: User, username: str) -> Invitation:
    """Invite a player by username to a game that is still waiting for players."""
    with transaction.atomic():
        game = _lock_game(game_id)
        if not game.seats.filter(user=inviter).exists():
            raise ActionRefused("Only a player at this table can invite.", code="not_a_player")
        _require_waiting(game)
        invitation = _invite(game, inviter, username)
        game.save(update_fields=["version"])
    return invitation


def join_game(*, game_id: int, user: User, invite_token: str | None = None) -> Game:
    """Take a free seat; the game starts by itself when the last seat is taken."""
    with transaction.atomic():
        game = _lock_game(game_id)
        _require_waiting(game)
        seats = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise ActionRefused("You already have a seat at this table.", code="already_seated")
        if len(seats) >= game.player_count:
            raise ActionRefused("This table is full.", code="table_full")
        # As bytes: compare_digest refuses str with non-ASCII characters (a forged token may).
        has_link = invite_token is not None and secrets.compare_digest(
            str(invite_token).encode(), game.invite_token.encode()
        )
        invited = (
            game.access == Game.Access.OPEN
            or has_link
            or game.invitations.filter(user=user).exists()
        )
        if not invited:
            raise ActionRefused("This game is by invitation only.", code="not_invited")
        number = max(seat.number for seat in seats) + 1 if seats else 0
        seats.append(Seat.objects.create(game=game, user=user, number=number))
        _record(game, "joined", actor=user)
        if len(seats) == game.player_count:
            _start(game, seats)
        game.save()
    return game


def leave_game(*, game_id: int, user: User) -> Game:
    """Give up a seat before the game starts (the creator cancels instead)."""
    with transaction.atomic():
        game = _lock_game(game_id)
        _require_waiting(game)
        if game.created_by_id == user.pk:
            raise ActionRefused("You created this game: cancel it instead.", code="creator")
        deleted, _ = game.seats.filter(user=user).delete()
        if not deleted:
            raise ActionRefused("You have no seat at this table.", code="not_a_player")
        _record(game, "left", actor=user)
        game.save(update_fields=["version"])
    return game


def cancel_game(*, game_id: int, user: User) -> Game:
    """Close a table that has not started; only its creator may."""
    with transaction.atomic():
        game = _lock_game(game_id)
        _require_waiting(game)
        if game.created_by_id != user.pk:
            raise ActionRefused("Only the game's creator can cancel it.", code="not_creator")
        game.status = Game.Status.CANCELLED
        game.ended_at = timezone.now()
        _record(game, "cancelled", actor=user)
        game.save(update_fields=["status", "ended_at", "version"])
        _refresh_invitees_badges(game, seated=())
    return game


def start_game(*, game_id: int, user: User) -> Game:
    """Start before the table is full: the creator may, once two players are seated."""
    with transaction.atomic():
        game = _lock_game(game_id)
        _require_waiting(game)
        if game.created_by_id != user.pk:
            raise ActionRefused("Only the game's creator can start it.", code="not_creator")
        seats = list(game.seats.all())
        if len(seats) < 2:
            raise ActionRefused("A game needs at least 2 players to start.", code="too_few")
        _start(game, seats)
        game.save()
    return game


# --- play --------------------------------------------------------------------------------------


def play(
    *,
    game_id: int,
    user: User,
    action: rules.Action | dict,
    seen_version: int | None,
    answered_page: str = "",
) -> Played:
    """Apply a player's action to their own seat.

    `seen_version` is the version of the page the player acted on. A draft (or its
    confirmation or undo) is refused as stale when the pool or the turn changed after it; an
    arrangement or a finish, when the player's own board or tray changed after it (another tab).
    Changes to other boards never make an action stale. `answered_page` names the page that
    gets the move in its answer, so its socket is not sent it again (games/changes.py).
    """
    try:
        action = rules.action_from_json(action)
    except RuleError as error:
        raise ActionRefused.from_rule_error(error) from None
    with transaction.atomic():
        game = _lock_game(game_id)
        seats = seats_in_order(game)
        seat = next((seat for seat in seats if seat.user_id == user.pk), None)
        if seat is None:
            raise ActionRefused("You are not playing in this game.", code="not_a_player")
        _require_playing(game)
        _check_fresh(game, seat, action, seen_version)
        events, change = _apply(
            game,
            seats,
            seat,
            action,
            actor=user,
            cause=Event.Cause.PLAYER,
            answered_page=answered_page,
        )
    return Played(game=game, seat=seat, events=events, seats=seats, change=change)


def draft_tile(*, game_id, user, tile_id, seen_version=None) -> Played:
    """Take a tile from the draw column into the tray, pending until confirmed."""
    return play(game_id=game_id, user=user, action=Draft(tile_id), seen_version=seen_version)


def confirm_draft(*, game_id, user, seen_version=None) -> Played:
    """Confirm the pending draft: the turn passes on."""
    return play(game_id=game_id, user=user, action=ConfirmDraft(), seen_version=seen_version)


def undo_draft(*, game_id, user, seen_version=None) -> Played:
    """Put the pending drafted tile back where it was in the draw column."""
    return play(game_id=game_id, user=user, action=UndoDraft(), seen_version=seen_version)


def place_tile(*, game_id, user, tile_id, space, rotation=0, seen_version=None) -> Played:
    action = rules.Place(tile_id, space, rotation)
    return play(game_id=game_id, user=user, action=action, seen_version=seen_version)


def rotate_tile(*, game_id, user, space, quarter_turns=1, seen_version=None) -> Played:
    action = rules.Rotate(space, quarter_turns)
    return play(game_id=game_id, user=user, action=action, seen_version=seen_version)


def move_tile(*, game_id, user, from_space, to_space, seen_version=None) -> Played:
    action = rules.Move(from_space, to_space)
    return play(game_id=game_id, user=user, action=action, seen_version=seen_version)


def swap_tiles(*, game_id, user, space_a, space_b, seen_version=None) -> Played:
    action = rules.Swap(space_a, space_b)
    return play(game_id=game_id, user=user, action=action, seen_version=seen_version)


def return_tile(*, game_id, user, space, seen_version=None) -> Played:
    action = rules.Return(space)
    return play(game_id=game_id, user=user, action=action, seen_version=seen_version)


def clear_board(*, game_id, user, seen_version=None) -> Played:
    return play(game_id=game_id, user=user, action=rules.Clear(), seen_version=seen_version)


def finish_board(*, game_id, user, seen_version=None) -> Played:
    """Submit the final board (finishing phase, no illegal tile); it is locked after."""
    return play(game_id=game_id, user=user, action=rules.Finish(), seen_version=seen_version)


def take_last_tile(*, game_id: int) -> Played | None:
    """Take the last tile of the draw column for the seat whose turn it is, if one is due.

    Safe to run any number of times: when no forced take is due it changes nothing.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None or not game.is_playing:
            return None
        seats = seats_in_order(game)
        forced = load_state(game, seats).forced_action()
        if forced is None:
            return None
        seat = seats[game.current_seat]
        events, change = _apply(
            game, seats, seat, forced, actor=None, cause=Event.Cause.FORCED_TAKE
        )
    return Played(game=game, seat=seat, events=events, seats=seats, change=change)


# --- the clock: what the server does when time runs out (games/tasks.py, the sweep) -----------


def time_out_turn(*, game_id: int, expected_version: int | None) -> Played | None:
    """Play the overdue turn for its player: the forced take if one is due (not a timeout),
    otherwise confirm their pending draft or draft a sensible tile for them
    (`rules.timeout_action`), record the events as caused by the timeout and count it on their
    seat.

    Does nothing unless the game is drafting, its deadline has passed, and (when given) its
    version is still `expected_version`: running late, twice, or after the player moved is safe.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None or not _overdue(game, rules.DRAFTING, expected_version):
            return None
        seats = seats_in_order(game)
        seat = seats[game.current_seat]
        state = load_state(game, seats)
        forced = state.forced_action()
        if forced is not None:
            events, change = _apply(
                game, seats, seat, forced, actor=None, cause=Event.Cause.FORCED_TAKE
            )
            return Played(game=game, seat=seat, events=events, seats=seats, change=change)
        action = rules.timeout_action(state, seat.number)
        events = []
        if isinstance(action, Draft):
            what = {"tile": action.tile_id, "confirmed": False}
            events += _apply(game, seats, seat, action, actor=None, cause=Event.Cause.TIMEOUT)[0]
            action = ConfirmDraft()
        else:  # their own pending draft, confirmed for them
            what = {"tile": state.pending.tile_id, "confirmed": True}
        applied, change = _apply(game, seats, seat, action, actor=None, cause=Event.Cause.TIMEOUT)
        events += applied
        _count_timeouts([seat])
        notice = Notice(TIMEOUT, game.pk, (seat.user_id,), game.version, what)
        _notify_on_commit([notice], game=game, seats=seats)
    return Played(game=game, seat=seat, events=events, seats=seats, change=change)


def finish_at_deadline(*, game_id: int, expected_version: int | None) -> Played | None:
    """End the finishing phase whose deadline has passed: every unfinished board is submitted as
    it is, its illegal tiles first returned to the tray (`rules.auto_finish_actions`), and the
    timeout is counted on those seats. The game ends with its results.

    Does nothing unless the game is finishing, its deadline has passed, and (when given) its
    version is still `expected_version`.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None or not _overdue(game, rules.FINISHING, expected_version):
            return None
        seats = seats_in_order(game)
        late = [seat for seat in seats if not seat.finished]
        events = []
        change = None
        for seat in late:
            for action in rules.auto_finish_actions(load_state(game, seats), seat.number):
                applied, change = _apply(
                    game, seats, seat, action, actor=None, cause=Event.Cause.DEADLINE
                )
                events += applied
        _count_timeouts(late)
    # The game-over email tells each late player what happened to their board.
    return Played(game=game, seat=None, events=events, seats=seats, change=change)


def remind_players(*, game_id: int) -> list[int]:
    """Send the turn's reminder if it is due, once: to the player whose move it is, or in the
    finishing phase to everyone not finished. Return the ids of the users reminded.

    Not a move: no event is recorded and the version stays, so nobody's page goes stale.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        set_for = game.remind_at if game is not None and game.is_playing else None
        if set_for is None or set_for > timezone.now():
            return []
        game.remind_at = None
        game.save(update_fields=["remind_at"])
        seats = seats_in_order(game)
        if game.phase == rules.DRAFTING:
            user_ids = [seats[game.current_seat].user_id]
        else:
            user_ids = [seat.user_id for seat in seats if not seat.finished]
        notice = Notice(REMINDER, game.pk, tuple(user_ids), game.pool_version)
        _notify_on_commit([notice], game=game, seats=seats)
    return user_ids


def record_analysis(*, game_id: int, analyses: dict[int, dict]) -> Game | None:
    """Store the post-game analysis of a finished game (games/analysis.py computes it): for each
    seat number, `best_score`, `best_board` and `best_optimal`. Recorded as an "analysed" event,
    so the version moves on and open pages redraw the results with it. Does nothing if the game
    has not ended or was analysed already (the task may run twice)."""
    with transaction.atomic():
        game = _lock_game(game_id)
        seats = seats_in_order(game)
        if game.status != Game.Status.ENDED or all(s.best_score is not None for s in seats):
            return None
        for seat in seats:
            found = analyses.get(seat.number)
            if found is not None:
                seat.best_score = found["best_score"]
                seat.best_board = found["best_board"]
                seat.best_optimal = found["best_optimal"]
        Seat.objects.bulk_update(seats, ["best_score", "best_board", "best_optimal"])
        _record(game, "analysed", data={"optimal": all(s.best_optimal for s in seats)})
        game.save(update_fields=["version"])
        change = Change(
            game_id=game.pk,
            version=game.version,
            seats=tuple(seat.number for seat in seats),
            pool=False,
            ended=True,
            kind="analysed",
        )
        transaction.on_commit(
            lambda: side_effects.after_play(change, forced_take_due=False, wake=[])
        )
    return game


# --- the machinery -----------------------------------------------------------------------------


def _lock_game(game_id) -> Game:
    try:
        game = lock_game(game_id)
    except (ValueError, TypeError):  # not an id at all
        game = None
    if game is None:
        raise ActionRefused("There is no such game.", code="no_such_game")
    return game


def _require_waiting(game: Game) -> None:
    if not game.is_waiting:
        raise ActionRefused("This game has already started or is closed.", code="not_waiting")


def _require_playing(game: Game) -> None:
    if game.status == Game.Status.WAITING:
        raise ActionRefused("This game has not started yet.", code="not_started")
    if not game.is_playing:
        raise ActionRefused("This game is over.", code="game_over")


def _overdue(game: Game, phase: str, expected_version: int | None) -> bool:
    """Return whether the game is in `phase` past its deadline, at the expected version."""
    if expected_version is not None and game.version != expected_version:
        return False
    return (
        game.is_playing
        and game.phase == phase
        and game.deadline is not None
        and game.deadline <= timezone.now()
    )


def _count_timeouts(seats: list[Seat]) -> None:
    Seat.objects.filter(pk__in=[seat.pk for seat in seats]).update(timeouts=F("timeouts") + 1)
    for seat in seats:
        seat.timeouts += 1


def _check_fresh(game: Game, seat: Seat, action: rules.Action, seen_version: int | None) -> None:
    if seen_version is None:
        return
    if not isinstance(seen_version, int) or seen_version < 0 or seen_version > game.version:
        raise StaleVersion()
    if isinstance(action, DRAFTING_ACTIONS):
        if seen_version < game.pool_version:
            raise StaleVersion()
    elif seen_version < seat.board_version:
        raise StaleVersion()


def _record(game, kind, *, seat=None, actor=None, cause=Event.Cause.PLAYER, action=None, data=None):
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


def _invite(game: Game, inviter: User, username: str) -> Invitation:
    invitee = User.objects.filter(username__iexact=(username or "").strip(), is_active=True).first()
    if invitee is None:
        raise ActionRefused(f"There is no player called “{username}”.", code="no_such_player")
    if invitee.bot_level:
        raise ActionRefused(
            f"{invitee.username} is a computer player: add computer players when you create a "
            "game.",
            code="bot",
        )
    if game.seats.filter(user=invitee).exists():
        raise ActionRefused(f"{invitee.username} already has a seat.", code="already_seated")
    try:
        with transaction.atomic():
            invitation = Invitation.objects.create(game=game, user=invitee, invited_by=inviter)
    except IntegrityError:
        raise ActionRefused(
            f"{invitee.username} is already invited.", code="already_invited"
        ) from None
    _record(game, "invited", actor=inviter, data={"user": invitee.pk})
    _notify_on_commit([Notice(INVITATION, game.pk, (invitee.pk,), game.version)])
    return invitation


def _start(game: Game, seats: list[Seat]) -> None:
    """Deal, draw the seat order, and open the first turn (the caller saves the game)."""
    game.seed = secrets.randbits(62)
    # The seat order comes from the game's own seeded generator, so the start can be replayed.
    order = list(seats)
    random.Random(game.seed).shuffle(order)
    # Two steps, so the unique (game, number) constraint holds after every single update.
    for seat in order:
        seat.number += 100
    Seat.objects.bulk_update(order, ["number"])
    for number, seat in enumerate(order):
        seat.number = number
    game.player_count = len(order)
    state = rules.new_game(game.player_count, game.seed)
    store_state(game, order, state)
    Seat.objects.bulk_update(order, ["number", *SEAT_STATE_FIELDS])
    now = timezone.now()
    game.status = Game.Status.PLAYING
    game.started_at = now
    _open_turn(game, now)
    _record(
        game,
        "started",
        data={
            "seed": game.seed,
            "players": game.player_count,
            "first_seat": 0,
            "seats": [seat.user_id for seat in order],
        },
    )
    game.pool_version = game.version
    seats[:] = order
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: side_effects.after_start(game_id, version))
    _refresh_invitees_badges(game, seated={seat.user_id for seat in order})
    everyone = tuple(seat.user_id for seat in order)
    _notify_on_commit(
        [
            Notice(GAME_STARTED, game.pk, everyone, game.version),
            Notice(YOUR_TURN, game.pk, everyone[:1], game.version, {"at_start": True}),
        ]
    )


def _apply(
    game, seats, seat, action, *, actor, cause, answered_page: str = ""
) -> tuple[list[Event], Change]:
    """Apply a checked-in action to the locked game, write everything, schedule the rest.

    `seats` are every seat in order, with their users (`state_store.seats_in_order`). Only the
    columns that the action changed are written: a placement rewrites one board, not the pool
    and every seat."""
    before = load_state(game, seats)
    try:
        after = before.apply(action, seat.number)
    except RuleError as error:
        raise ActionRefused.from_rule_error(error) from None
    saved = {name: getattr(game, name) for name in MOVE_GAME_FIELDS}
    changed_fields = store_changes(game, seats, after)
    event = _record(
        game, action.type, seat=seat.number, actor=actor, cause=cause, action=action.to_json()
    )
    if isinstance(action, DRAFTING_ACTIONS):
        game.pool_version = game.version
    changed_seats = [s for s in seats if s.number in changed_fields]
    for changed in changed_seats:
        changed.board_version = game.version

    now = timezone.now()
    forced_take_due = after.forced_action() is not None
    turn_passed = after.current != before.current or after.phase != before.phase
    notices = []
    if after.phase == rules.DRAFTING and turn_passed:
        _open_turn(game, now, forced_take_due=forced_take_due)
        if not forced_take_due:  # a forced take is the server's move, not the player's
            user_id = seats[after.current].user_id
            notices.append(Notice(YOUR_TURN, game.pk, (user_id,), game.version))
    elif after.phase == rules.FINISHING and before.phase == rules.DRAFTING:
        # Every player gets one more period of the same length to finish.
        _open_turn(game, now)
        unfinished = tuple(s.user_id for s in seats if not after.finished[s.number])
        notices.append(Notice(FINISH, game.pk, unfinished, game.version))
    elif after.phase == rules.ENDED:
        _end(game, seats, after, now)
        changed_seats = seats
        everyone = tuple(s.user_id for s in seats)
        notices.append(Notice(GAME_OVER, game.pk, everyone, game.version))

    game.save(update_fields=[name for name, was in saved.items() if getattr(game, name) != was])
    if after.phase == rules.ENDED:  # every seat gets its result
        Seat.objects.bulk_update(seats, [*SEAT_STATE_FIELDS, "board_version", *RESULT_FIELDS])
    else:  # one board or tray at most: a plain UPDATE of what changed
        for changed in changed_seats:
            names = [*changed_fields[changed.number], "board_version"]
            Seat.objects.filter(pk=changed.pk).update(**{n: getattr(changed, n) for n in names})

    redrawn = {changed.number for changed in changed_seats}
    drafting = isinstance(action, DRAFTING_ACTIONS)
    if drafting:  # the drafter's pending tile, and the turn's marker on the boards
        redrawn |= {seat.number, after.current} - {None}
    # The players whose count of games waiting for them changed: their badges are redrawn.
    waiting = _waiting_seats(after)
    flipped = _waiting_seats(before) ^ waiting
    change = Change(
        game_id=game.pk,
        version=game.version,
        seats=tuple(sorted(redrawn)),
        pool=drafting or turn_passed,
        ended=after.phase == rules.ENDED,
        kind=action.type,
        answered_page=answered_page,
        waiting_changed=tuple((seats[n].user_id, n in waiting) for n in sorted(flipped)),
    )
    from games.bots.turns import due_after  # games/bots.py plays through this module

    # The bots this change hands something to do, known here without a query.
    number = seat.number
    wake = due_after(game, seats, kind=action.type, seat=number, forced_take_due=forced_take_due)
    transaction.on_commit(
        lambda: side_effects.after_play(
            change,
            forced_take_due=forced_take_due,
            wake=wake,
            seat=number,
            game=game,
            seats=seats,
        )
    )
    _notify_on_commit(notices, game=game, seats=seats)
    return [event], change


def _waiting_seats(state: rules.GameState) -> set[int]:
    """The seats whose move `state` waits for (what the nav badge counts, game by game)."""
    return {
        number
        for number, done in enumerate(state.finished)
        if selectors.waits_for_move(state.phase, state.current, number, done)
    }


def _end(game, seats, state, now) -> None:
    for result in state.results():
        seat = seats[result.seat]
        seat.score = result.score
        seat.place = result.place
        seat.chip_tiles = result.chip_tiles
        seat.chip_value = result.chip_value
        seat.penalty_tiles = result.penalty_tiles
    game.status = Game.Status.ENDED
    game.ended_at = now
    game.deadline = game.remind_at = None
    # Part of the ending transaction; rates the game once however often the end is processed.
    ratings.rate_game(game=game, seats=seats)
    game_id = game.pk
    transaction.on_commit(lambda: side_effects.after_end(game_id))


def _open_turn(game: Game, now, *, forced_take_due: bool = False) -> None:
    """Start the clock of a turn (or of the finishing phase); the caller saves the game.

    A turn that begins with a forced take is due at once, with no reminder: the server takes
    the tile right away (the task queued after commit, or else the sweep).
    """
    game.turn_started_at = now
    if forced_take_due:
        game.deadline, game.remind_at = now, None
    else:
        game.deadline = now + game.time_per_move
        game.remind_at = reminder_time(game.deadline, game.time_per_move)


def _refresh_invitees_badges(game: Game, *, seated) -> None:
    """After the commit, have the invitees' pages count their badges again: an invitation counts
    only while its table waits for players. (The seated ones hear of the start with theirs.)"""
    invitees = [pk for pk in game.invitations.values_list("user_id", flat=True) if pk not in seated]
    if invitees:
        game_id = game.pk
        transaction.on_commit(lambda: side_effects.refresh_badges(game_id, invitees))


def _notify_on_commit(notices: list[Notice], *, game=None, seats=None) -> None:
    """Queue the notices' pushes and emails for after the commit. `game` and `seats` (with their
    users), when given, are the game as this transaction left it: the pushes and the choice of
    emails need not read them again."""
    if notices:
        transaction.on_commit(lambda: side_effects.notify(notices, game=game, seats=seats))
