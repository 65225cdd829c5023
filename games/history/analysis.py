"""Post-game analysis: the best score each player's final tiles could have made.

When a game ends, the task `games.analyse_game` asks `best_arrangements`: for every seat, the
solver (games/rules/solver.py) arranges all the tiles the player finished with (board and
tray) on their board's colours, under a time limit per seat (ANALYSIS_TIME_LIMIT; most deals
are proved optimal in well under a second). games/play/actions/ending.py `record_analysis`
stores the score, the board and whether it is proved optimal on the seat, and open pages
redraw the results with it. The results and replay pages draw it beside what the player built
(`analysis_rows`, partials/analysis.html).
"""

from dataclasses import dataclass

from django.conf import settings

from games import rules
from games.drawing.spaces import SpaceView, space_views
from games.models import Game, Seat
from games.rules.board import Board, Placed, colours_from_names

ANALYSIS_TIME_LIMIT = 5.0


def best_for_seat(seat: Seat, time_limit: float | None) -> dict:
    """Return the best arrangement of the seat's final tiles: score, board cells, optimal."""
    colours = colours_from_names(seat.colours)
    tiles = list(seat.tray) + [cell[0] for cell in seat.board if cell is not None]
    best = rules.best_arrangement(colours, tiles, time_limit=time_limit)
    if seat.score is not None and best.score < seat.score:
        # Out of time (a loaded machine) before it found what the player built: the best known
        # is the player's own board, not proved optimal.
        return {"best_score": seat.score, "best_board": seat.board, "best_optimal": False}
    cells = [None if c is None else [c.tile, c.rotation] for c in best.board.cells]
    return {"best_score": best.score, "best_board": cells, "best_optimal": best.optimal}


def best_arrangements(*, game_id: int) -> dict[int, dict] | None:
    """Compute the analysis of every seat of a finished game, by seat number (None if it has
    not ended or is analysed already). Reads only: the solver runs outside any transaction, and
    games/play/actions/ending.py `record_analysis` stores what it found."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.ENDED).first()
    if game is None:
        return None
    seats = list(game.seats.order_by("number"))
    if all(seat.best_score is not None for seat in seats):
        return None
    time_limit = getattr(settings, "ANALYSIS_TIME_LIMIT", None)
    if time_limit is None:  # not set: this module's own
        time_limit = ANALYSIS_TIME_LIMIT
    return {seat.number: best_for_seat(seat, time_limit) for seat in seats}


@dataclass
class AnalysisRow:
    """One player's line of the analysis: what they built and the best their tiles allowed."""

    seat: Seat
    built: list[SpaceView]
    built_score: int | None
    best: list[SpaceView]
    best_score: int
    optimal: bool

    @property
    def user(self):
        return self.seat.user

    @property
    def missed(self) -> int | None:
        return None if self.built_score is None else self.best_score - self.built_score


def _spaces(colours, cells) -> list[SpaceView]:
    return space_views(Board(colours, [None if c is None else Placed(c[0], c[1]) for c in cells]))


def analysis_rows(seats: list[Seat]) -> list[AnalysisRow]:
    """Return the analysis of each seat that has one (no query: the seats are loaded)."""
    rows = []
    for seat in seats:
        if seat.best_score is None or not seat.colours:
            continue
        colours = colours_from_names(seat.colours)
        rows.append(
            AnalysisRow(
                seat=seat,
                built=_spaces(colours, seat.board),
                built_score=seat.score,
                best=_spaces(colours, seat.best_board),
                best_score=seat.best_score,
                optimal=bool(seat.best_optimal),
            )
        )
    return rows
