"""A player leaving a game in play (games/play/leaving.py): resigning, the vote to hand a seat to
the server; and the post-game analysis stored once the game has ended."""

from accounts.models import User
from games.live.changes import Change
from games.models import Game, Seat
from games.play import leaving
from games.play.actions.common import (
    Played,
    played,
    seat_in_play,
    seat_numbered,
)
from games.play.applying import changing, record


def resign(*, game_id: int, user: User) -> Played:
    """The player resigns. When at most one seat is left staying (two players) the game ends
    and that player wins; when only computer players and stand-ins are left it ends too;
    otherwise the server's easy player takes over the seat for the rest of the game. Either
    way the player is ranked after everyone who stays. A player who has finished may not (the
    rules refuse it): the game no longer waits for them, and their board stands."""
    with changing(game_id) as table:
        seat = seat_in_play(table, user)
        events = leaving.hand_over(table, seat, Seat.Left.RESIGNED, actor=user)
    return played(table, seat, events)


def vote_to_expel(*, game_id: int, user: User, seat_number: object) -> Played:
    """The player votes to hand the seat `seat_number` to the server, whose player has timed
    out twice in a row or more; a strict majority of the other people still playing hands it
    over (games/play/leaving.py)."""
    with changing(game_id) as table:
        voter = seat_in_play(table, user)
        events = leaving.vote(table, voter, seat_numbered(table, seat_number))
    return played(table, voter, events)


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
