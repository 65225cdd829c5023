"""Who may see a game: its page, its replay, its socket, its line in a list.

One check first in every page, endpoint and socket that names a game (`may_see_game`,
`socket_access`), and one filter for every list of games (`visible_games`). A game its viewer
may not see is answered exactly as a missing one.
"""

import secrets
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef, Q

from accounts.models import User
from games.models import Game, Invitation, Seat

# Who looks: a player, or a visitor who is not signed in.
Viewer = User | AnonymousUser


def can_view(game: Game, user: Viewer, seats: list[Seat] | None = None) -> bool:
    """A public table may be seen by anyone; a private one by its players and the people invited
    to it, and while an open one waits for players, by whoever may take a seat. A signed-out
    visitor sees no game of a player who shows their games to signed-in players only
    (accounts/privacy.py), whoever else plays it: its page, its replay, its socket. `seats`,
    the game's seats with their players if read already, spares a query."""
    if not user.is_authenticated:
        return not game.private and not _hidden_from_visitors(game, seats)
    if not game.private:
        return True
    if game.is_waiting and game.access == Game.Access.OPEN:
        return True
    return game.seats.filter(user=user).exists() or game.invitations.filter(user=user).exists()


def may_see_game(game_id: int, user: Viewer, *, invite_token: object = None) -> bool:
    """Whether `user` may see the game numbered `game_id` (`can_view`), or holds the link to
    its table (`invite_token`); False when there is no such game, so that a private game and a
    missing one are told apart by nobody. One query for a public game."""
    game = (
        Game.objects.filter(pk=game_id)
        .only("pk", "private", "status", "access", "invite_token")
        .first()
    )
    if game is None:
        return False
    # As bytes: compare_digest refuses str with non-ASCII characters (a forged token may).
    has_link = (
        isinstance(invite_token, str)
        and game.status == Game.Status.WAITING
        and secrets.compare_digest(invite_token.encode(), game.invite_token.encode())
    )
    return has_link or can_view(game, user)


def _hidden_from_visitors(game: Game, seats: list[Seat] | None = None) -> bool:
    """Whether a player of `game` shows their games to signed-in players only."""
    if seats is not None:
        return any(seat.user.games_shown_to == User.GamesShownTo.SIGNED_IN for seat in seats)
    return game.seats.filter(user__games_shown_to=User.GamesShownTo.SIGNED_IN).exists()


def visible_games(user: Viewer) -> Q:
    """The games `user` may see (a filter on Game): the public ones, and the private ones where
    they have a seat or an invitation; to a signed-out visitor, the public ones where nobody
    shows their games to signed-in players only."""
    if not user.is_authenticated:
        hiding = Seat.objects.filter(
            game=OuterRef("pk"), user__games_shown_to=User.GamesShownTo.SIGNED_IN
        )
        return Q(private=False) & ~Q(Exists(hiding))
    # From the user's own seats and invitations (their indexes), not from every private game.
    seated = Seat.objects.filter(user=user).values("game_id")
    invited = Invitation.objects.filter(user=user).values("game_id")
    return Q(private=False) | Q(private=True, pk__in=seated) | Q(private=True, pk__in=invited)


@dataclass(frozen=True)
class SocketAccess:
    """Who may open a game's socket, and what the consumer needs to know about its seats."""

    allowed: bool
    started: bool
    version: int
    seats: tuple[tuple[int, int, str], ...]  # (number, user id, username)


def socket_access(game_id: int, user: Viewer) -> SocketAccess | None:
    """Whether `user` may watch the game live (None: there is no such game)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    seats = tuple(game.seats.order_by("number").values_list("number", "user_id", "user__username"))
    return SocketAccess(
        allowed=can_view(game, user),
        started=game.status in (Game.Status.PLAYING, Game.Status.ENDED),
        version=game.version,
        seats=seats,
    )
