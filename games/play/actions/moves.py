"""The moves of a game: a player's (`play`, whatever the rules action), the forced take, the
stand-in's for a player who left, and a player's queued draft (drafting ahead)."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import vacations as vacation_days
from accounts.models import User
from games import rules
from games.live.changes import queue_event, user_group
from games.models import Event, Game, Seat
from games.play import vacations
from games.play.actions.common import (
    Played,
    played,
    require_playing,
    seat_in_play,
    seat_numbered,
)
from games.play.applying import DRAFTING_ACTIONS, apply_action, changing
from games.play.errors import ActionRefused, StaleVersion
from games.rules import Conclude, Resign, RuleError, ahead
from games.state_store import load_state

# Rules actions a player does not post: leaving has its own changes (`resign`, the vote), and
# the early end is the server's.
NOT_POSTED = (Resign, Conclude)


# The kinds of action a player posts, by their JSON type: the server's own (the forced take, the
# early end) and resigning (a change of its own) are none of them, and a refusal never names
# them (issue 34: the API's unknown-action error listed them).
POSTED_TYPES = tuple(
    kind for kind, cls in rules.ACTION_TYPES.items() if cls not in (*NOT_POSTED, rules.TakeLast)
)


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
        seat = seat_in_play(table, user)
        _check_fresh(table.game, seat, action, seen_version)
        apply_action(
            table, seat, action, actor=user, cause=Event.Cause.PLAYER, answered_page=answered_page
        )
        back = vacation_days.on_vacation(seat.user, timezone.now())
    if back:  # their own move ends their vacation, in every game (one change each)
        vacations.end_vacation(user_id=user.pk)
    # With the queued drafts its turn passing made, if any (games/play/applying.py).
    return played(table, seat, list(table.effects.events))


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
    return played(table, seat, [event])


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
        require_playing(game)
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
        seat = seat_numbered(table, seat_number)
        if not seat.left:
            raise ActionRefused(_("Its player plays this seat."), code="not_left")
        require_playing(table.game)
        _check_fresh(table.game, seat, action, seen_version)
        cause = Event.Cause.STAND_IN
        event = apply_action(table, seat, action, actor=None, cause=cause)
    return played(table, seat, [event])


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
