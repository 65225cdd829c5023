"""Play a whole game through games/play/actions/, recording the state after every event."""

from games.models import Game
from games.play import actions

from ..games.playing import current_state, next_move


def play_recorded(game: Game) -> dict[int, object]:
    """Play `game` to its end with the greedy players; return {event number: state after it}.

    The forced takes are made here, one call each, rather than by the task after commit, so
    that the state after every single event is seen.
    """
    recorded = {}
    while True:
        state = current_state(game)
        if game.status != Game.Status.PLAYING:
            return recorded
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        else:
            seat, action = next_move(game)
            user = game.seats.get(number=seat).user
            actions.play(game_id=game.pk, user=user, action=action, seen_version=game.version)
        game.refresh_from_db()
        recorded[game.version] = current_state(game)
