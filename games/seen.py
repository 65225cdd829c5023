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
from games.models import Game, Seat
from infra.selects import Update, table_name


def see_game(*, game_id: int, user: User | int, version: int) -> bool:
    """Record that `user` has seen the game as of `version` (their page showed it, visible).

    The "your move" rule (games/notices/notice.py) and the since-your-last-visit summary read
    it. One UPDATE that only moves forward and never past the game's own version, so racing
    pages and a stale heartbeat are harmless; no lock, no event: it changes nobody's game.
    Return whether it moved on.
    """
    if not isinstance(version, int) or version < 0:
        return False
    user_id = user.pk if isinstance(user, User) else user
    return bool(_see.run(version, game_id, user_id, version, version))


def _see_sql(connection) -> str:
    """The seat's seen version moved forward to a version the game has reached: one statement
    written once (infra/selects.py). Every visible page's heartbeat records it (issue 36): as a
    queryset with its join it cost 0.89 ms of CPU to compile and run, in daphne."""
    quote = connection.ops.quote_name
    seat, game = table_name(Seat, connection), table_name(Game, connection)
    column = Seat._meta.get_field
    seen, seat_game = quote(column("seen_version").column), quote(column("game").column)
    return (
        f"UPDATE {seat} SET {seen} = %s "
        f"WHERE {seat_game} = %s AND {quote(column('user').column)} = %s AND {seen} < %s "
        f"AND %s <= (SELECT {quote(Game._meta.get_field('version').column)} FROM {game} "
        f"WHERE {game}.{quote(Game._meta.pk.column)} = {seat}.{seat_game})"
    )


_see = Update(_see_sql)


def dismiss_notices(*, game_id: int, user: User | int, version: int) -> bool:
    """Put away the page's notices of what the server did to `user`'s seat up to `version`
    (a forced take, a timeout, the finishing deadline). Return whether any were."""
    if not isinstance(version, int) or version < 0:
        return False
    seats = Seat.objects.filter(
        game_id=game_id, user=user, dismissed_version__lt=version, game__version__gte=version
    )
    return bool(seats.update(dismissed_version=version))
