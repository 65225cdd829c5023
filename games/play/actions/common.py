"""What the changes to a game share: what an accepted action changed (`Played`), and the checks
that refuse a request on a game in play."""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from accounts.models import User
from games.live.changes import Change
from games.models import Event, Game, Seat
from games.play.applying import Table
from games.play.errors import ActionRefused


@dataclass(frozen=True)
class Played:
    """What an accepted action changed, for the caller to redraw."""

    game: Game
    seat: Seat | None
    events: list[Event]
    seats: list[Seat]  # every seat, in order, as the change left them (with their users)
    change: Change | None  # what the last event touched
    online: frozenset[int] | None = None  # who was watching, if the change read it (Table)


def played(table: Table, seat: Seat | None, events: list[Event]) -> Played:
    changes = table.effects.changes
    return Played(
        game=table.game,
        seat=seat,
        events=events,
        seats=table.seats,
        change=changes[-1] if changes else None,
        online=table.online,
    )


def seat_in_play(table: Table, user: User) -> Seat:
    """The user's seat at a game in play, which they have not left; refused otherwise."""
    seat = table.seat_of(user)
    if seat is None:
        raise ActionRefused(_("You are not playing in this game."), code="not_a_player")
    require_playing(table.game)
    require_staying(seat)
    return seat


def require_playing(game: Game) -> None:
    if game.status == Game.Status.WAITING:
        raise ActionRefused(_("This game has not started yet."), code="not_started")
    if not game.is_playing:
        raise ActionRefused(_("This game is over."), code="game_over")


def require_staying(seat: Seat) -> None:
    if seat.left:
        raise ActionRefused(
            _("You have left this game: the server plays your seat."), code="already_left"
        )


def seat_numbered(table: Table, number: object) -> Seat:
    if not isinstance(number, int) or isinstance(number, bool):
        raise ActionRefused(_("Say which seat, by its number."), code="bad_request")
    if not 0 <= number < len(table.seats):
        raise ActionRefused(
            _("There is no seat %(number)s at this table.") % {"number": number}, code="bad_request"
        )
    return table.seats[number]
