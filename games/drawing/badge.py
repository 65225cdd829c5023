"""The nav badge: how many games wait for the player's move, and their invitations, counted once
per page and then kept up to date from the pushes without a query."""

import functools
from dataclasses import dataclass

from django.db.models import BooleanField, ExpressionWrapper
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import User
from games.dashboard import invitations_for
from games.models import Game, Seat, waiting_for_move


@dataclass
class Badge:
    """What the nav badge counts, game by game: for each running game of the player, its version
    and whether it waits for their move (the player drafts, or has still to finish), and their
    invitations to tables still waiting for players.

    Each open page's consumer keeps one (games/live/consumers.py), read on connect, and updates it
    from the ``user.notify`` events of the moves that made a game start or stop waiting for the
    player (games/live/changes.py `waiting_changed`): each says which version of which game, so
    events that arrive late or out of order change nothing, and the count needs no query. An
    event about a game it does not know, or with no version (an invitation, a game that
    started), makes it count again."""

    games: dict[int, tuple[int, bool]]
    invitations: int

    @property
    def turns(self) -> int:
        return sum(1 for _, waiting in self.games.values() if waiting)

    def update(self, game_id: int, version: int, waiting: bool) -> bool | None:
        """Take the news that `game_id` at `version` waits for the player or not; return whether
        the count changed, or None when the game is not one this count knows."""
        known = self.games.get(game_id)
        if known is None:
            return None
        if version <= known[0]:
            return False  # the count was read at this version or later
        self.games[game_id] = (version, waiting)
        return waiting != known[1]

    def draw(self) -> str:
        return _draw_badge(self.turns, self.invitations)


def count_badge(user: User) -> Badge:
    """Read the player's badge: two queries, whatever the number of games."""
    rows = (
        Seat.objects.filter(user=user, game__status=Game.Status.PLAYING)
        .annotate(waiting=ExpressionWrapper(waiting_for_move(), output_field=BooleanField()))
        .values_list("game_id", "game__version", "waiting")
    )
    games = {game_id: (version, waiting) for game_id, version, waiting in rows}
    return Badge(games, invitations_for(user).count())


def draw_badge(user: User) -> str:
    """The nav badge: how many games wait for the player (one way to draw it, page and push)."""
    return count_badge(user).draw()


def _draw_badge(turns: int, invitations: int) -> str:
    return _draw_badge_in(turns, invitations, translation.get_language())


@functools.lru_cache(maxsize=256)
def _draw_badge_in(turns: int, invitations: int, language: str) -> str:
    """The badge for these counts: the same for everyone who reads this language, so drawn
    once per process."""
    return render_to_string(
        "games/partials/badge.html", {"turns": turns, "invitations": invitations}
    )
