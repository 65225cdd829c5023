"""The post-game analysis never calls a board the best when the player built a better one."""

from benchmarks.simulate import play_game
from games import rules
from games.history.analysis import best_for_seat
from games.models import Seat


def test_the_best_is_never_below_what_the_player_built_even_out_of_time():
    final, _ = play_game(3, 1)
    board = final.boards[0]
    tiles = [*final.trays[0], *board.tiles()]
    built = rules.best_arrangement(board.colours, tiles)  # a player who found the optimum
    on_board = set(built.board.tiles())
    seat = Seat(
        number=0,
        colours=[colour.value for colour in board.colours],
        board=built.board.cells_to_json(),
        tray=[tile for tile in tiles if tile not in on_board],
        score=built.score,
    )
    # With no time to search, the solver's own first board is worse than the player's.
    assert rules.best_arrangement(board.colours, tiles, time_limit=0.0).score < built.score

    found = best_for_seat(seat, time_limit=0.0)

    assert found["best_score"] == built.score
    assert found["best_board"] == seat.board and found["best_optimal"] is False
