"""Every change to a game, one function each, in the style of Zulip's zerver/actions.

Each is one transaction that locks the game row (games/play/applying.py `changing`), checks the
request with the rules package and against the version the player saw, writes the rows,
appends the events, and says what it caused; games/effects.py sends that on after the commit,
so nothing is pushed or queued for a change that rolled back. The site's pages, the Celery
tasks, the computer players and the tests call these functions, and nothing else writes a game.

A player's move is one function, `play`, whatever the action: the rules action (or its JSON
form) says what it is, as the pages and the computer players send it.
"""

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Model as DjangoModel
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import blocking, privacy
from accounts import vacations as vacation_days
from accounts.bots import NoFreeBot, free_bot
from accounts.models import User
from games import models, rules
from games.live.changes import (
    Change,
    LobbyChange,
    badge_event,
    game_group,
    queue_event,
    rematch_event,
    user_group,
)
from games.models import (
    ABANDON_AFTER_ROW,
    ABANDON_AFTER_TOTAL,
    ABANDON_ROW_RANGE,
    ABANDON_TOTAL_RANGE,
    Event,
    Game,
    Invitation,
    Seat,
)
from games.notices.notice import GAME_STARTED, INVITATION, REMINDER, YOUR_TURN, Notice
from games.play import clock, leaving, vacations
from games.play.applying import (
    DRAFTING_ACTIONS,
    Table,
    apply_action,
    changing,
    notify,
    record,
    save_clocks,
    send_after_commit,
    wake_bots,
)
from games.play.errors import ActionRefused, StaleVersion
from games.rules import Conclude, ConfirmDraft, Resign, RuleError, ahead
from games.rules.bots import LEVELS as BOT_LEVELS
from games.state_store import SEAT_STATE_FIELDS, load_state, store_state

MAX_NAME_LENGTH = 60
# A seat refused because of a block between the joiner and someone seated: neutral words.
SEAT_NOT_OFFERED = gettext_noop("You cannot take a seat at this table.")
# Rules actions a player does not post: leaving has its own changes (`resign`, the vote), and
# the early end is the server's.
NOT_POSTED = (Resign, Conclude)
# The kinds of action a player posts, by their JSON type: the server's own (the forced take, the
# early end) and resigning (a change of its own) are none of them, and a refusal never names
# them (issue 34: the API's unknown-action error listed them).
POSTED_TYPES = tuple(
    kind for kind, cls in rules.ACTION_TYPES.items() if cls not in (*NOT_POSTED, rules.TakeLast)
)


@dataclass(frozen=True)
class Played:
    """What an accepted action changed, for the caller to redraw."""

    game: Game
    seat: Seat | None
    events: list[Event]
    seats: list[Seat]  # every seat, in order, as the change left them (with their users)
    change: Change | None  # what the last event touched
    online: frozenset[int] | None = None  # who was watching, if the change read it (Table)


# --- the lobby ---------------------------------------------------------------------------------


def create_game(
    *,
    creator: User,
    player_count: int,
    time_per_move: timedelta | None = None,
    clock: str = Game.Clock.PER_MOVE,
    fischer_bank: timedelta | None = None,
    fischer_increment: timedelta | None = None,
    fischer_cap: timedelta | None = None,
    finishing_time: timedelta | None = None,
    weekends_off: bool = False,
    rated: bool = True,
    strict_finish: bool = False,
    access: str = Game.Access.OPEN,
    private: bool | None = None,
    spectators_read_chat: bool = True,
    name: str = "",
    invitees: tuple[str, ...] = (),
    bots: tuple[str, ...] = (),
    abandon_after_row: int = ABANDON_AFTER_ROW,
    abandon_after_total: int = ABANDON_AFTER_TOTAL,
    tournament_round: DjangoModel | None = None,  # a tournaments.Round, named by its app only
) -> Game:
    """Open a new table with its creator in the first seat; invite `invitees` by username.

    `bots` are the levels of computer players to seat at once ("easy", "strong"); each joins
    through `join_game`, like a person with the invitation link, so a table full of bots and
    its creator starts at once. `strict_finish` is the table option that Finish needs every
    placed path closed (seed 002), not only every tile legal. The time control: `clock` "per_move"
    with `time_per_move`, or "fischer" with `fischer_bank`, `fischer_increment` and
    `fischer_cap`; `finishing_time` (None: the time per move, or the Fischer starting bank);
    `weekends_off` stops each player's clock on their Saturdays and Sundays. After
    `abandon_after_row` timeouts in a row, or `abandon_after_total` in all, a player's seat is
    handed to the server's stand-in (games/play/leaving.py). `spectators_read_chat`: whether
    people watching may read the players' table talk (games/chat.py). `tournament_round`: the
    round of a tournament this table is one of (games/tournaments/actions.py seats its players
    through `join_game` at once)."""
    name = (name or "").strip()
    if not 2 <= player_count <= 5:
        raise ActionRefused(_("A game has 2 to 5 players."), code="bad_player_count")
    time_control = _time_control(
        clock, time_per_move, fischer_bank, fischer_increment, fischer_cap, finishing_time
    )
    if access not in Game.Access.values:
        raise ActionRefused(_("Choose an open game or one by invitation."), code="bad_access")
    if len(name) > MAX_NAME_LENGTH:
        raise ActionRefused(
            ngettext(
                "A game's name has at most %(count)d character.",
                "A game's name has at most %(count)d characters.",
                MAX_NAME_LENGTH,
            )
            % {"count": MAX_NAME_LENGTH}
        )
    if len(bots) > player_count - 1:
        raise ActionRefused(_("Leave a seat for yourself: too many computer players."), code="bots")
    if any(level not in BOT_LEVELS for level in bots):
        raise ActionRefused(_("There is no such computer player."), code="bots")
    _check_abandonment(abandon_after_row, abandon_after_total)
    with transaction.atomic():
        game = Game.objects.create(
            name=name,
            created_by=creator,
            player_count=player_count,
            **time_control,
            weekends_off=bool(weekends_off),
            rated=rated,
            strict_finish=bool(strict_finish),
            access=access,
            # By default a table by invitation is private, an open one public.
            private=access == Game.Access.INVITATION if private is None else bool(private),
            spectators_read_chat=bool(spectators_read_chat),
            abandon_after_row=abandon_after_row,
            abandon_after_total=abandon_after_total,
            tournament_round=tournament_round,
        )
        table = Table(game, [Seat.objects.create(game=game, user=creator, number=0)])
        record(
            game,
            "created",
            actor=creator,
            data={
                "player_count": player_count,
                "strict_finish": game.strict_finish,
                "abandon_after": [abandon_after_row, abandon_after_total],
            },
        )
        for username in invitees:
            _invite(table, creator, username)
        game.save(update_fields=["version"])
        _own_table_changed(table, creator)
        send_after_commit(table)
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
    with changing(game_id) as table:
        if table.seat_of(inviter) is None:
            raise ActionRefused(_("Only a player at this table can invite."), code="not_a_player")
        _require_waiting(table.game)
        invitation = _invite(table, inviter, username)
        table.game.save(update_fields=["version"])
    return invitation


def join_game(*, game_id: int, user: User, invite_token: str | None = None) -> Game:
    """Take a free seat; the game starts by itself when the last seat is taken."""
    with changing(game_id) as table:
        game, seats = table.game, table.seats
        _require_waiting(game)
        if table.seat_of(user) is not None:
            raise ActionRefused(_("You already have a seat at this table."), code="already_seated")
        if len(seats) >= game.player_count:
            raise ActionRefused(_("This table is full."), code="table_full")
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
            raise ActionRefused(_("This game is by invitation only."), code="not_invited")
        # A tournament's table seats whom its pairing chose, as a chess tournament does; a block
        # still keeps their table talk apart (games/chat.py).
        kept_apart = game.tournament_round_id is None
        if kept_apart and blocking.blocked_ids(user.pk) & {seat.user_id for seat in seats}:
            # Kept apart from someone seated (accounts/blocking.py), whoever blocked whom; the
            # words name nobody and no block.
            raise ActionRefused(_(SEAT_NOT_OFFERED), code="not_offered")
        number = max(seat.number for seat in seats) + 1 if seats else 0
        seats.append(Seat.objects.create(game=game, user=user, number=number))
        record(game, "joined", actor=user)
        if len(seats) == game.player_count:
            _start(table)
        game.save()
        _lobby_changed(table, "started" if game.is_playing else "joined")
        if not game.is_playing:  # a start tells every player already
            _own_table_changed(table, user)
        if game.rematch_of_id is not None:  # its offer on the ended game's pages: accepted
            table.effects.push(game_group(game.rematch_of_id), rematch_event(game.rematch_of_id))
    return game


def leave_game(*, game_id: int, user: User) -> Game:
    """Give up a seat before the game starts (the creator cancels instead)."""
    with changing(game_id) as table:
        game = table.game
        _require_waiting(game)
        if game.created_by_id == user.pk:
            raise ActionRefused(_("You created this game: cancel it instead."), code="creator")
        deleted, _count = game.seats.filter(user=user).delete()
        if not deleted:
            raise ActionRefused(_("You have no seat at this table."), code="not_a_player")
        table.seats = [seat for seat in table.seats if seat.user_id != user.pk]
        record(game, "left", actor=user)
        game.save(update_fields=["version"])
        _lobby_changed(table, "left")
        if game.rematch_of_id is not None:
            table.effects.push(game_group(game.rematch_of_id), rematch_event(game.rematch_of_id))
    return game


def cancel_game(*, game_id: int, user: User) -> Game:
    """Close a table that has not started; only its creator may."""
    with changing(game_id) as table:
        _require_waiting(table.game)
        if table.game.created_by_id != user.pk:
            raise ActionRefused(_("Only the game's creator can cancel it."), code="not_creator")
        _cancel(table, user)
    return table.game


def decline_invitation(*, game_id: int, user: User) -> Game:
    """Say no to an invitation to a table still waiting for players: it no longer counts for
    `user`. A rematch (games/play/rematches.py) is for the same players or not at all: one player
    declining calls it off."""
    with changing(game_id) as table:
        game = table.game
        invitation = game.invitations.filter(user=user).first()
        if invitation is None or not game.is_waiting:
            raise ActionRefused(_("You have no invitation to this table."), code="not_invited")
        if table.seat_of(user) is not None:
            raise ActionRefused(
                _("You have a seat at this table: leave it instead."), code="seated"
            )
        invitation.delete()
        record(game, "declined", actor=user)
        table.effects.push(user_group(user.pk), badge_event(game.pk))
        if game.rematch_of_id is not None:
            _cancel(table, user)
        else:
            game.save(update_fields=["version"])
            _lobby_changed(table, "declined")
    return game


def _cancel(table: Table, by: User) -> None:
    game = table.game
    game.status = Game.Status.CANCELLED
    game.ended_at = timezone.now()
    record(game, "cancelled", actor=by)
    game.save(update_fields=["status", "ended_at", "version"])
    _recount_invitees_badges(table)
    _lobby_changed(table, "cancelled")
    if game.rematch_of_id is not None:
        table.effects.push(game_group(game.rematch_of_id), rematch_event(game.rematch_of_id))


def start_game(*, game_id: int, user: User) -> Game:
    """Start before the table is full: the creator may, once two players are seated."""
    with changing(game_id) as table:
        game = table.game
        _require_waiting(game)
        if game.created_by_id != user.pk:
            raise ActionRefused(_("Only the game's creator can start it."), code="not_creator")
        if len(table.seats) < 2:
            raise ActionRefused(_("A game needs at least 2 players to start."), code="too_few")
        _start(table)
        game.save()
        _lobby_changed(table, "started")
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
    """Apply a player's action (a rules Action or its JSON form) to their own seat.

    `seen_version` is the version of the page the player acted on. A draft (or its
    confirmation or undo) is refused as stale when the pool or the turn changed after it; an
    arrangement or a finish, when the player's own board or tray changed after it (another tab).
    Changes to other boards never make an action stale. `answered_page` names the page that
    gets the move in its answer, so its socket is not sent it again (games/live/changes.py).
    A player on vacation who moves is back: the vacation ends after the move, in every game.
    """
    action = _posted_action(action)
    with changing(game_id) as table:
        seat = table.seat_of(user)
        if seat is None:
            raise ActionRefused(_("You are not playing in this game."), code="not_a_player")
        _require_playing(table.game)
        _require_staying(seat)
        _check_fresh(table.game, seat, action, seen_version)
        apply_action(
            table, seat, action, actor=user, cause=Event.Cause.PLAYER, answered_page=answered_page
        )
        back = vacation_days.on_vacation(seat.user, timezone.now())
    if back:  # their own move ends their vacation, in every game (one change each)
        vacations.end_vacation(user_id=user.pk)
    # With the queued drafts its turn passing made, if any (games/play/applying.py).
    return _played(table, seat, list(table.effects.events))


def take_last_tile(*, game_id: int) -> Played | None:
    """Take the last tile of the draw column for the seat whose turn it is, if one is due.

    Safe to run any number of times: when no forced take is due it changes nothing.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None or not table.game.is_playing:
            return None
        forced = load_state(table.game, table.seats).forced_action()
        if forced is None:
            return None
        seat = table.seats[table.game.current_seat]
        event = apply_action(table, seat, forced, actor=None, cause=Event.Cause.FORCED_TAKE)
    return _played(table, seat, [event])


@dataclass(frozen=True)
class Queued:
    """A player's queued draft as `queue_drafts` left it, with the game it was checked on."""

    game: Game
    seat: Seat
    seats: list[Seat]


def queue_drafts(
    *,
    game_id: int,
    user: User,
    tiles: Iterable[int],
    confirm: bool,
    seen_version: int | None,
    answered_page: str = "",
) -> Queued:
    """Queue the player's next draft: `tiles` (tile ids, best first) of the column their next
    turn draws from, and whether to `confirm` the draft too (games/play/applying.py drafts it
    when that turn begins). No tiles clears the queue, which is always allowed.

    Not a move of the game: no event and no new version, and nobody else hears of it; their own
    other pages redraw it (`Effects.queues`). The game row is locked, so the turn cannot begin
    while the queue changes. Refused, as for a draft, if the pool or the turn changed after the
    version `seen_version` the player queued on: they would be choosing for another turn."""
    tiles = tuple(tiles)
    with changing(game_id) as table:
        game, seat = table.game, table.seat_of(user)
        if seat is None:
            raise ActionRefused(_("You are not playing in this game."), code="not_a_player")
        _require_playing(game)
        if tiles and seat.left:
            raise ActionRefused(
                _("You have left this game: the server drafts for your seat."), code="already_left"
            )
        if tiles:
            fresh = isinstance(seen_version, int) and seen_version >= game.pool_version
            if seen_version is not None and not (fresh and seen_version <= game.version):
                raise StaleVersion()
            try:
                ahead.check_queue(load_state(game, table.seats), seat.number, tiles)
            except RuleError as error:
                raise ActionRefused.from_rule_error(error) from None
        queued = ahead.Queue(tiles, bool(confirm)).to_json()
        if seat.queued_draft != queued:
            seat.queued_draft = queued
            Seat.objects.filter(pk=seat.pk).update(queued_draft=queued)
        table.effects.push(user_group(seat.user_id), queue_event(game.pk, answered_page))
    return Queued(game=game, seat=seat, seats=table.seats)


# --- the clock: what the server does when time runs out (games/tasks.py, the sweep) -----------


def time_out_turn(*, game_id: int, expected_version: int | None) -> Played | None:
    """Play the overdue turn for its player: the forced take if one is due (not a timeout),
    otherwise confirm their pending draft or draft a sensible tile for them
    (`rules.timeout_action`), record the events as caused by the timeout and count it on their
    seat.

    Does nothing unless the game is drafting, its deadline has passed, and (when given) its
    version is still `expected_version`: running late, twice, or after the player moved is safe.
    A player on vacation is not timed out: their clock is counted again (a vacation that began
    while the sweep found the turn), unless it ran out before the vacation began. A forced
    take is the server's move, made for them all the same.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None or not _overdue(table.game, rules.DRAFTING, expected_version):
            return None
        game, seats = table.game, table.seats
        seat = seats[game.current_seat]
        state = load_state(game, seats)
        forced = state.forced_action()
        if forced is not None:
            event = apply_action(table, seat, forced, actor=None, cause=Event.Cause.FORCED_TAKE)
            return _played(table, seat, [event])
        if _recounted_for_vacations(table, [seat]) and table.game.deadline > timezone.now():
            return None
        events = []
        if state.pending is None:  # a draft chosen for them (rules.timeout_action), confirmed
            # The rules' one timeout pick (with nothing forced nor pending: a draft).
            draft = rules.timeout_action(state, seat.number)
            assert isinstance(draft, rules.Draft), draft
            what = {"tile": draft.tile_id, "confirmed": False}
            events.append(apply_action(table, seat, draft, actor=None, cause=Event.Cause.TIMEOUT))
        else:  # their own pending draft, confirmed for them
            what = {"tile": state.pending.tile_id, "confirmed": True}
        confirm = ConfirmDraft()
        events.append(apply_action(table, seat, confirm, actor=None, cause=Event.Cause.TIMEOUT))
        # Counted, and told; too many, and the seat is handed to the server.
        events += leaving.timed_out(table, seat, what)
    return _played(table, seat, events)


def finish_at_deadline(*, game_id: int, expected_version: int | None) -> Played | None:
    """Submit the boards whose finishing time has run out (each player has their own: weekends
    and vacations differ) as they are, their illegal tiles first returned to the tray
    (`rules.auto_finish_actions`), and count the timeout on those seats. When the last board is
    in, the game ends with its results.

    Does nothing unless the game is finishing, its (earliest) deadline has passed, and (when
    given) its version is still `expected_version`.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None or not _overdue(table.game, rules.FINISHING, expected_version):
            return None
        late = clock.late_seats(table.game, table.seats, timezone.now())
        if _recounted_for_vacations(table, late):
            late = clock.late_seats(table.game, table.seats, timezone.now())
        if not late:
            return None
        events = []
        for seat in late:
            state = load_state(table.game, table.seats)
            for action in rules.auto_finish_actions(state, seat.number):
                cause = Event.Cause.DEADLINE
                events.append(apply_action(table, seat, action, actor=None, cause=cause))
        leaving.count_timeouts(late)
    # The game-over email tells each late player what happened to their board.
    return _played(table, None, events)


def remind_players(*, game_id: int) -> list[int]:
    """Send the turn's reminder if it is due, once: to the player whose move it is, or in the
    finishing phase to everyone not finished whose own reminder is due. Return the ids of the
    users reminded.

    Not a move: no event is recorded and the version stays, so nobody's page goes stale.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None:
            return []
        game = table.game
        set_for = game.remind_at if game.is_playing else None
        now = timezone.now()
        if set_for is None or set_for > now:
            return []
        reminded = clock.remind_seats(game, table.seats, now)
        game.save(update_fields=["deadline", "remind_at"])
        if game.phase == rules.FINISHING:
            save_clocks(table.seats, {seat.number for seat in reminded})
        user_ids = [seat.user_id for seat in reminded if not seat.left]
        if user_ids:
            notify(table, [Notice(REMINDER, game.pk, tuple(user_ids), game.pool_version)])
    return user_ids


# --- leaving a game (games/play/leaving.py) ----------------------------------------------------


def resign(*, game_id: int, user: User) -> Played:
    """The player resigns. When at most one seat is left staying (two players) the game ends
    and that player wins; when only computer players and stand-ins are left it ends too;
    otherwise the server's easy player takes over the seat for the rest of the game. Either
    way the player is ranked after everyone who stays. A player who has finished may not (the
    rules refuse it): the game no longer waits for them, and their board stands."""
    with changing(game_id) as table:
        seat = table.seat_of(user)
        if seat is None:
            raise ActionRefused(_("You are not playing in this game."), code="not_a_player")
        _require_playing(table.game)
        _require_staying(seat)
        events = leaving.hand_over(table, seat, Seat.Left.RESIGNED, actor=user)
    return _played(table, seat, events)


def vote_to_expel(*, game_id: int, user: User, seat_number: object) -> Played:
    """The player votes to hand the seat `seat_number` to the server, whose player has timed
    out twice in a row or more; a strict majority of the other people still playing hands it
    over (games/play/leaving.py)."""
    with changing(game_id) as table:
        voter = table.seat_of(user)
        if voter is None:
            raise ActionRefused(_("You are not playing in this game."), code="not_a_player")
        _require_playing(table.game)
        _require_staying(voter)
        events = leaving.vote(table, voter, _seat_numbered(table, seat_number))
    return _played(table, voter, events)


def _posted_action(action: rules.Action | dict) -> rules.Action:
    """The rules action of a move made on a seat (not the server's own kinds), or a refusal."""
    if isinstance(action, dict) and action.get("type") not in POSTED_TYPES:
        raise ActionRefused(
            _("Unknown action type %(kind)s (known: %(known)s).")
            % {"kind": repr(action.get("type")), "known": ", ".join(POSTED_TYPES)},
            code="bad_action",
        )
    try:
        action = rules.action_from_json(action)
    except RuleError as error:
        raise ActionRefused.from_rule_error(error) from None
    if isinstance(action, NOT_POSTED):
        raise ActionRefused(_("That is not a move of the game."), code="bad_action")
    return action


def play_stand_in(
    *, game_id: int, seat_number: int, action: rules.Action | dict, seen_version: int | None
) -> Played:
    """Apply the server's stand-in's action to the seat of a player who left, as `play` applies
    a player's (games/bots/turns.py decides it, with the easy strategy): no actor, the cause
    "stand_in", refused as stale as a player's move would be."""
    action = _posted_action(action)
    with changing(game_id) as table:
        seat = _seat_numbered(table, seat_number)
        if not seat.left:
            raise ActionRefused(_("Its player plays this seat."), code="not_left")
        _require_playing(table.game)
        _check_fresh(table.game, seat, action, seen_version)
        cause = Event.Cause.STAND_IN
        event = apply_action(table, seat, action, actor=None, cause=cause)
    return _played(table, seat, [event])


def record_analysis(*, game_id: int, analyses: dict[int, dict]) -> Game | None:
    """Store the post-game analysis of a finished game (games/history/analysis.py computes it):
    for each seat number, `best_score`, `best_board` and `best_optimal`. Recorded as an
    "analysed" event, so the version moves on and open pages redraw the results with it. Does
    nothing if the game has not ended or was analysed already (the task may run twice)."""
    with changing(game_id) as table:
        game, seats = table.game, table.seats
        if game.status != Game.Status.ENDED or all(s.best_score is not None for s in seats):
            return None
        for seat in seats:
            found = analyses.get(seat.number)
            if found is not None:
                seat.best_score = found["best_score"]
                seat.best_board = found["best_board"]
                seat.best_optimal = found["best_optimal"]
        Seat.objects.bulk_update(seats, ["best_score", "best_board", "best_optimal"])
        record(game, "analysed", data={"optimal": all(s.best_optimal for s in seats)})
        game.save(update_fields=["version"])
        table.effects.changes.append(
            Change(
                game_id=game.pk,
                version=game.version,
                seats=tuple(seat.number for seat in seats),
                pool=False,
                ended=True,
                kind="analysed",
            )
        )
    return game


# --- helpers -----------------------------------------------------------------------------------


def _played(table: Table, seat: Seat | None, events: list[Event]) -> Played:
    changes = table.effects.changes
    return Played(
        game=table.game,
        seat=seat,
        events=events,
        seats=table.seats,
        change=changes[-1] if changes else None,
        online=table.online,
    )


def _require_waiting(game: Game) -> None:
    if not game.is_waiting:
        raise ActionRefused(_("This game has already started or is closed."), code="not_waiting")


def _require_playing(game: Game) -> None:
    if game.status == Game.Status.WAITING:
        raise ActionRefused(_("This game has not started yet."), code="not_started")
    if not game.is_playing:
        raise ActionRefused(_("This game is over."), code="game_over")


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


def _require_staying(seat: Seat) -> None:
    if seat.left:
        raise ActionRefused(
            _("You have left this game: the server plays your seat."), code="already_left"
        )


def _seat_numbered(table: Table, number: object) -> Seat:
    if not isinstance(number, int) or isinstance(number, bool):
        raise ActionRefused(_("Say which seat, by its number."), code="bad_request")
    if not 0 <= number < len(table.seats):
        raise ActionRefused(
            _("There is no seat %(number)s at this table.") % {"number": number}, code="bad_request"
        )
    return table.seats[number]


def _check_abandonment(in_row: object, in_all: object) -> None:
    (low_row, high_row), (low_all, high_all) = ABANDON_ROW_RANGE, ABANDON_TOTAL_RANGE
    if not (isinstance(in_row, int) and low_row <= in_row <= high_row):
        raise ActionRefused(
            _("Timeouts in a row before the server takes a seat: %(low)d to %(high)d.")
            % {"low": low_row, "high": high_row},
            code="bad_abandonment",
        )
    if not (isinstance(in_all, int) and low_all <= in_all <= high_all):
        raise ActionRefused(
            _("Timeouts in all before the server takes a seat: %(low)d to %(high)d.")
            % {"low": low_all, "high": high_all},
            code="bad_abandonment",
        )
    if in_all < in_row:
        raise ActionRefused(
            _(
                "Timeouts in all before the server takes a seat must be at least as many as in "
                "a row."
            ),
            code="bad_abandonment",
        )


def _recounted_for_vacations(table: Table, seats: list[Seat]) -> bool:
    """If any of `seats` (whose time the clock says has run out) is on vacation, count the
    game's clocks again and save them, and return True: a vacation that began just as the sweep
    found the turn, whose own change has not reached this game yet (it redraws the pages). A
    time that ran out before the vacation began stays run out."""
    now = timezone.now()
    if not any(vacation_days.on_vacation(seat.user, now) for seat in seats):
        return False
    game = table.game
    clocked = clock.recount(game, table.seats, forced_take_due=False)
    game.save(update_fields=["deadline", "remind_at"])
    save_clocks(table.seats, clocked)
    return True


def checked_time_control(
    *,
    clock: str,
    time_per_move: timedelta | None,
    fischer_bank: timedelta | None,
    fischer_increment: timedelta | None,
    fischer_cap: timedelta | None,
    finishing_time: timedelta | None,
) -> dict:
    """The time control's fields of a new table, checked as `create_game` checks them (a
    tournament's settings for its tables are checked when it is opened)."""
    return _time_control(
        clock, time_per_move, fischer_bank, fischer_increment, fischer_cap, finishing_time
    )


def _time_control(
    clock_kind: str,
    per_move: timedelta | None,
    bank: timedelta | None,
    increment: timedelta | None,
    cap: timedelta | None,
    finishing: timedelta | None,
) -> dict:
    """The time control's fields of a new game, checked (games/models/game.py has the ranges)."""
    if finishing is not None and not (
        models.MIN_FINISHING_TIME <= finishing <= models.MAX_FINISHING_TIME
    ):
        raise ActionRefused(
            _("The finishing time must be from 1 hour to 14 days."), code="bad_time"
        )
    if clock_kind == Game.Clock.FISCHER:
        if bank is None or increment is None or cap is None:
            raise ActionRefused(
                _("A Fischer clock needs a starting bank, an increment and a cap."), code="bad_time"
            )
        if not models.MIN_FISCHER_BANK <= bank <= cap <= models.MAX_FISCHER_BANK:
            raise ActionRefused(
                _(
                    "A Fischer bank starts at 1 hour or more and at most at its cap, and the cap "
                    "is at most 30 days."
                ),
                code="bad_time",
            )
        if not models.MIN_FISCHER_INCREMENT <= increment <= models.MAX_FISCHER_INCREMENT:
            raise ActionRefused(_("The increment must be from 1 hour to 7 days."), code="bad_time")
        if increment > cap:
            raise ActionRefused(_("The increment cannot be more than the cap."), code="bad_time")
        return {
            "clock": clock_kind,
            "time_per_move": increment,  # what a draft gives (the emails' "per move")
            "fischer_bank": bank,
            "fischer_increment": increment,
            "fischer_cap": cap,
            "finishing_time": finishing,
        }
    if clock_kind != Game.Clock.PER_MOVE:
        raise ActionRefused(_("Choose a time per move or a Fischer clock."), code="bad_time")
    if per_move is None or not models.MIN_TIME_PER_MOVE <= per_move <= models.MAX_TIME_PER_MOVE:
        raise ActionRefused(_("The time per move must be from 1 hour to 14 days."), code="bad_time")
    return {"clock": clock_kind, "time_per_move": per_move, "finishing_time": finishing}


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


def _invite(table: Table, inviter: User, username: str) -> Invitation:
    game = table.game
    invitee = User.objects.named((username or "").strip()).filter(is_active=True).first()
    if invitee is None:
        raise ActionRefused(
            _("There is no player called “%(name)s”.") % {"name": username}, code="no_such_player"
        )
    if invitee.bot_level:
        raise ActionRefused(
            _("%(player)s is a computer player: add computer players when you create a game.")
            % {"player": invitee.username},
            code="bot",
        )
    if table.seat_of(invitee) is not None:
        raise ActionRefused(
            _("%(player)s already has a seat.") % {"player": invitee.username},
            code="already_seated",
        )
    if blocking.has_blocked(inviter, invitee):
        raise ActionRefused(
            _("You blocked %(player)s: unblock them on their profile to invite them.")
            % {"player": invitee.username},
            code="blocked_by_you",
        )
    if not privacy.accepts_invitation_from(invitee, inviter):
        # One sentence for a block of theirs and "only players I follow" (accounts/privacy.py).
        raise ActionRefused(
            privacy.REFUSES_INVITATION.format(name=invitee.username), code="refuses_invitations"
        )
    try:
        with transaction.atomic():
            invitation = Invitation.objects.create(game=game, user=invitee, invited_by=inviter)
    except IntegrityError:
        raise ActionRefused(
            _("%(player)s is already invited.") % {"player": invitee.username},
            code="already_invited",
        ) from None
    record(game, "invited", actor=inviter, data={"user": invitee.pk})
    notify(table, [Notice(INVITATION, game.pk, (invitee.pk,), game.version)], {invitee.pk: invitee})
    return invitation


def _start(table: Table) -> None:
    """Deal, draw the seat order, and open the first turn (the caller saves the game)."""
    game = table.game
    if game.seed is None:  # else chosen before the start: the guided game's (games/first_visit)
        game.seed = secrets.randbits(62)
    # Who sits where is the rules' draw from the game's seed, so the start can be replayed.
    joined = table.seats
    order = [joined[index] for index in rules.seat_order(len(joined), game.seed)]
    # Two steps, so the unique (game, number) constraint holds after every single update.
    for seat in order:
        seat.number += 100
    Seat.objects.bulk_update(order, ["number"])
    for number, seat in enumerate(order):
        seat.number = number
    game.player_count = len(order)
    # The deal is made from what the start event records, as every reader of the past remakes it.
    start = {
        "seed": game.seed,
        "players": game.player_count,
        "first_seat": 0,
        "strict_finish": game.strict_finish,
        "layout": game.layout,
    }
    state = rules.state_at_start(start)
    store_state(game, order, state)
    for seat in order:  # a Fischer clock: everyone starts with the same bank
        seat.bank = game.fischer_bank if game.fischer else None
    Seat.objects.bulk_update(order, ["number", "bank", *SEAT_STATE_FIELDS])
    now = timezone.now()
    game.status = Game.Status.PLAYING
    game.started_at = now
    clock.open_turn(game, order, now)
    record(
        game,
        "started",
        data={**start, "seats": [seat.user_id for seat in order]},
    )
    game.pool_version = game.version
    table.seats = order
    _recount_invitees_badges(table)
    everyone = tuple(seat.user_id for seat in order)
    # A tournament's table: the round's own notice tells its players of it (their table, their
    # opponents; games/tournaments/notices.py), not a "game started" email each.
    told = {"at_start": True}
    if game.tournament_round_id:
        told["tournament"] = True
    notify(
        table,
        [
            Notice(GAME_STARTED, game.pk, everyone, game.version, told),
            Notice(YOUR_TURN, game.pk, everyone[:1], game.version, told),
        ],
    )
    table.effects.tasks += wake_bots(table, state.to_move())


def _lobby_changed(table: Table, kind: str) -> None:
    """Have the table's open waiting-room pages redraw its seats after the commit (and, when it
    started, become the game page): games/live/changes.py `LobbyChange`."""
    seats = tuple((seat.number, seat.user_id, seat.user.username) for seat in table.seats)
    change = LobbyChange(table.game.pk, table.game.version, kind, seats)
    table.effects.push(game_group(table.game.pk), change.event())


def _own_table_changed(table: Table, user: User) -> None:
    """Tell the player's own pages and API streams (games/api/stream.py) of the table they just
    sat down at: the pages count their badges again, the streams follow the new table at once."""
    table.effects.push(user_group(user.pk), badge_event(table.game.pk))


def _recount_invitees_badges(table: Table) -> None:
    """Have the invitees' pages count their badges again after the commit: an invitation counts
    only while its table waits for players. (The seated ones hear of the start with theirs.)"""
    seated = {seat.user_id for seat in table.seats} if table.game.is_playing else set()
    invitees = tuple(
        pk for pk in table.game.invitations.values_list("user_id", flat=True) if pk not in seated
    )
    for user_id in invitees:
        table.effects.push(user_group(user_id), badge_event(table.game.pk))
