"""The answer-cost benchmark (benchmarks/loadtest/answercost.py) stays working: a short run
plays moves through the whole stack both ways, answered as drawn and as a fixed 2 KB, and prints
both figures beside the two floors' (drawn by a template, and a fixed 2 KB; run only on
PostgreSQL and Redis, as the floor needs them). Its figures are in docs/performance.md, not
here."""

import re

import pytest
from django.conf import settings
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
    if connection.vendor == "postgresql" and settings.REDIS_URL:
        floors = re.findall(
            r"floor \((template|fixed)\) in-process: 12 moves, CPU mean \d+\.\d\d ms, "
            r"median \d+\.\d\d ms, answer (\d+) B",
            out,
        )
        assert [html for html, _ in floors] == ["template", "fixed"], out
        # The template draws about what the platform's median answer weighs; the old floor 2 KB.
        assert int(floors[0][1]) > 2500 and 1500 < int(floors[1][1]) < 2500, out
    else:
        assert out.count("floor: not run: the floor runs on") == 2, out
    assert not Game.objects.exists()  # it deletes what it made
