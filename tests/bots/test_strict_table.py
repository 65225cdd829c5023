"""Computer players at a table with the strict-finish option: they finish with every placed
path closed, by themselves (the finishing deadline never has to)."""

import pytest

from games import rules
from games.models import Event, Game
from games.play import actions
from tests.bots.conftest import DAY
from tests.games.playing import current_state


@pytest.mark.django_db(transaction=True)
def test_computer_players_finish_a_strict_table(bot):
    game = actions.create_game(
        creator=bot("easy", 1),
        player_count=3,
        time_per_move=DAY,
        bots=("strong", "easy"),
        strict_finish=True,
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert game.events.filter(kind="finish").count() == 3
    assert not game.events.filter(cause=Event.Cause.DEADLINE).exists()
    for board in current_state(game).boards:
        found = rules.markers(board)
        assert not found.open_path and not found.illegal
