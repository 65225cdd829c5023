import pytest

from games.models import Game
from games.play import actions
from tests.bots.conftest import DAY, _quick_bots, bot  # noqa: F401 (fixtures)


@pytest.fixture
def finished_game(bot):  # noqa: F811 (the fixture imported above)
    """A game of easy computer players alone, played to the end by their eager tasks: its
    analysis and its review (the engine's small test budget, tests/conftest.py) follow."""

    def make(players=2):
        game = actions.create_game(
            creator=bot("easy"), player_count=players, time_per_move=DAY,
            bots=("easy",) * (players - 1), rated=False,
        )  # fmt: skip
        game.refresh_from_db()
        assert game.status == Game.Status.ENDED
        return game

    return make
