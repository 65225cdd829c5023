"""The answer-cost benchmark (benchmarks/loadtest/answercost.py) stays working: a short run
plays moves through the whole stack both ways, answered as drawn and as a fixed 2 KB, and prints
both figures beside the floor's (run only on PostgreSQL, as the floor needs it). Its figures are
in docs/performance.md, not here."""

import re

import pytest
from django.db import connection

from benchmarks.loadtest import answercost
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_answer_cost_benchmark_plays_moves_both_ways_and_prints_the_figures(
    monkeypatch, capsys
):
    monkeypatch.setenv("MICROCHIP_ANSWERCOST_MOVES", "12")
    monkeypatch.setenv("MICROCHIP_ANSWERCOST_WARM_UP", "3")
    answercost.main()

    out = capsys.readouterr().out
    drawn = re.search(r"platform +(\d+\.\d\d) +(\d+\.\d\d) +(\d+) B", out)
    fixed = re.search(r"no drawing\) +(\d+\.\d\d) +(\d+\.\d\d) +(\d+) B", out)
    assert drawn and fixed, out
    assert int(fixed.group(3)) == 2048  # the floor's answer, drawn by nothing
    assert int(drawn.group(3)) > 500  # the platform's own pieces
    if connection.vendor == "postgresql":
        assert re.search(r"floor in-process: 12 moves, CPU mean \d+\.\d\d ms", out), out
    else:
        assert "floor: not run: the floor runs on PostgreSQL" in out
    assert not Game.objects.exists()  # it deletes what it made
