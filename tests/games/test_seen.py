"""What a player has seen of a game: a page shows it, a visible heartbeat, their own move."""

import pytest

from games import rules, seen
from games.play import actions

from .playing import current_state

pytestmark = pytest.mark.django_db


def seat_of(game, number):
    return game.seats.get(number=number)


def test_seen_only_moves_forward_and_never_past_the_game(start_game):
    game = start_game(2)
    game.refresh_from_db()
    user = seat_of(game, 0).user

    assert seen.see_game(game_id=game.pk, user=user, version=game.version)
    assert seat_of(game, 0).seen_version == game.version
    # A late heartbeat of an older page, a version from the future, junk: nothing changes.
    assert not seen.see_game(game_id=game.pk, user=user, version=game.version - 1)
    assert not seen.see_game(game_id=game.pk, user=user, version=game.version + 1)
    assert not seen.see_game(game_id=game.pk, user=user, version="3")
    assert seat_of(game, 0).seen_version == game.version
    # Only the player's own seat.
    assert seat_of(game, 1).seen_version == 0


def test_a_players_own_move_counts_as_seen(start_game):
    game = start_game(2)
    state = current_state(game)
    user = seat_of(game, state.current).user
    drafted = actions.play(
        game_id=game.pk, user=user, action=rules.Draft(state.draw_tiles()[0]), seen_version=None
    )
    # The draft that begins their move is the version they saw (its confirmation writes no seat).
    assert seat_of(game, state.current).seen_version == drafted.events[-1].number
    assert seat_of(game, 1 - state.current).seen_version == 0


def test_dismissing_notices_puts_away_those_up_to_the_version(start_game):
    game = start_game(2)
    game.refresh_from_db()
    user = seat_of(game, 1).user
    assert seen.dismiss_notices(game_id=game.pk, user=user, version=game.version)
    assert not seen.dismiss_notices(game_id=game.pk, user=user, version=game.version)
    assert seat_of(game, 1).dismissed_version == game.version
