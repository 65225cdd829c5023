"""A table's life before its game: opening it, inviting, joining, leaving, declining, cancelling
and starting it (the deal and the seat order), with the waiting room's live events."""

import secrets
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Model as DjangoModel
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import blocking, privacy
from accounts.bots import NoFreeBot, free_bot
from accounts.models import User
from games import rules
from games.live.changes import LobbyChange, badge_event, game_group, rematch_event, user_group
from games.models import ABANDON_AFTER_ROW, ABANDON_AFTER_TOTAL, Game, Invitation, Seat
from games.notices.notice import GAME_STARTED, INVITATION, YOUR_TURN, Notice
from games.play import clock
from games.play.actions.time_controls import check_abandonment, time_control_of
from games.play.applying import Table, changing, notify, record, send_after_commit, wake_bots
from games.play.errors import ActionRefused
from games.rules.bots import LEVELS as BOT_LEVELS
from games.state_store import SEAT_STATE_FIELDS, store_state

MAX_NAME_LENGTH = 60


# A seat refused because of a block between the joiner and someone seated: neutral words.
SEAT_NOT_OFFERED = gettext_noop("You cannot take a seat at this table.")


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

    `bots` are the levels of computer players to seat at once ("easy", "strong", "expert"); each
    joins through `join_game`, like a person with the invitation link, so a table full of bots
    and its creator starts at once. `strict_finish` is the table option that Finish needs every
    placed path closed (seed 002), not only every tile legal. The time control: `clock` "per_move"
    with `time_per_move`, or "fischer" with `fischer_bank`, `fischer_increment` and
    `fischer_cap`; `finishing_time` (None: the time per move, or the Fischer starting bank);
    `weekends_off` stops each player's clock on their Saturdays and Sundays. After
    `abandon_after_row` timeouts in a row, or `abandon_after_total` in all, a player's seat is
    handed to the server's stand-in (games/play/leaving.py). `spectators_read_chat`: whether
    people watching may read the players' table talk (games/chat.py). `tournament_round`: the
    round of a tournament this table is one of (games/tournaments/actions/rounds.py seats its
    players through `join_game` at once)."""
    name = (name or "").strip()
    if not 2 <= player_count <= 5:
        raise ActionRefused(_("A game has 2 to 5 players."), code="bad_player_count")
    time_control = time_control_of(
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
    check_abandonment(abandon_after_row, abandon_after_total)
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


def _require_waiting(game: Game) -> None:
    if not game.is_waiting:
        raise ActionRefused(_("This game has already started or is closed."), code="not_waiting")


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
