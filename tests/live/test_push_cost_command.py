"""The push-cost benchmark (benchmarks/loadtest/pushcost.py) stays working: a short run plays a
game, draws its pushes both ways and prints both figures. Its figures are in
docs/performance.md, measured on PostgreSQL and Redis, not here."""

import re

import pytest

from benchmarks.loadtest import pushcost
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_push_cost_benchmark_plays_a_game_and_prints_both_figures(monkeypatch, capsys):
    monkeypatch.setenv("MICROCHIP_PUSHCOST_ROUNDS", "1")
    pushcost.main()

    out = capsys.readouterr().out
    drawn = int(re.search(r"(\d+) pushes drawn for one page", out).group(1))
    assert drawn > 20  # a whole game's pushes to one of its two players
    assert re.search(r"from the carried version\s+\d+\.\d\d", out)
    assert re.search(r"read back \(as before\)\s+\d+\.\d\d", out)
    assert not Game.objects.exists()  # it deletes what it made
