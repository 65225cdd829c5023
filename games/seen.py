"""What each player has seen of their games, and put away.

A seat's `seen_version` is the newest version of the game its player has seen: their page
drew it (a page load), showed it while visible (the heartbeat of games/live/consumers.py), or
they acted on it. The "one unread 'your move' a game" rule (games/notices/notice.py), the
since-your-last-visit summary and the held-back emails read it. Its `dismissed_version` puts
away the page's notices of what the server did to the seat.

Neither is a change to the game: no lock, no event, no push. Each is one UPDATE that only moves
forward and never past the game's version, so racing pages and a late heartbeat are harmless.
"""

from accounts.models import User
from games.models import Seat


def see_game(*, game_id: int, user: User | int, version: int) -> bool:
    """Record that `user` has seen the game as of `version` (their page showed it, visible).

    The "your move" rule (games/notices/notice.py) and the since-your-last-visit summary read
    it. One UPDATE that only moves forward and never past the game's own version, so racing
    pages and a stale heartbeat are harmless; no lock, no event: it changes nobody's game.
    Return whether it moved on.
    """
    if not isinstance(version, int) or version < 0:
        return False
    seats = Seat.objects.filter(
        game_id=game_id, user=user, seen_version__lt=version, game__version__gte=version
    )
    return bool(seats.update(seen_version=version))


def dismiss_notices(*, game_id: int, user: User | int, version: int) -> bool:
    """Put away the page's notices of what the server did to `user`'s seat up to `version`
    (a forced take, a timeout, the finishing deadline). Return whether any were."""
    if not isinstance(version, int) or version < 0:
        return False
    seats = Seat.objects.filter(
        game_id=game_id, user=user, dismissed_version__lt=version, game__version__gte=version
    )
    return bool(seats.update(dismissed_version=version))
