"""Games of every kind a database holds, played through games/play/actions/."""

from datetime import timedelta

from games.models import Game
from games.play import actions
from tests.games.playing import current_state, next_move
from tests.history.playing import play_recorded


def play_some_moves(game: Game, count: int) -> None:
    """Play `count` sensible moves (the server's forced takes made here, as they fall due)."""
    for _ in range(count):
        if current_state(game).forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
            continue
        seat, action = next_move(game)
        player = game.seats.get(number=seat)
        if player.left:  # the server's stand-in plays the seat of a player who left
            actions.play_stand_in(
                game_id=game.pk, seat_number=seat, action=action, seen_version=game.version
            )
        else:
            actions.play(
                game_id=game.pk, user=player.user, action=action, seen_version=game.version
            )


def games_of_every_kind(start_game, players) -> dict[str, Game]:
    """An ended game, one in play (where a player resigned and the server plays their seat),
    one waiting for players and a cancelled one."""
    ended = start_game(2)
    play_recorded(ended)
    playing = start_game(3)
    play_some_moves(playing, 6)
    resigner = playing.seats.get(number=2).user
    actions.resign(game_id=playing.pk, user=resigner)
    play_some_moves(playing, 6)
    waiting = actions.create_game(
        creator=players[1], player_count=3, time_per_move=timedelta(days=1)
    )
    cancelled = actions.create_game(
        creator=players[2], player_count=2, time_per_move=timedelta(days=1)
    )
    actions.cancel_game(game_id=cancelled.pk, user=players[2])
    found = {"ended": ended, "playing": playing, "waiting": waiting, "cancelled": cancelled}
    for game in found.values():
        game.refresh_from_db()
    assert [game.status for game in found.values()] == list(found)
    return found
