import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_rules, simulate
from games.rules import deal
from games.rules.cli import main

ROOT = Path(__file__).resolve().parents[2]
ROWS = [["blue", "red", "green", "yellow", "pink"][r:] + ["blue", "red", "green", "yellow",
        "pink"][:r] for r in range(5)]  # fmt: skip


# The rules' own commands (`python -m games.rules`), and the simulations and the benchmark of the
# rules, which live with the other tools (`python -m benchmarks simulate|rules`).
BENCHMARKS = {"simulate": simulate.main, "rules": bench_rules.main}


def run(args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    streams = {"stdin": io.StringIO(stdin), "stdout": out, "stderr": err}
    if args and args[0] in BENCHMARKS:
        code = BENCHMARKS[args[0]](args[1:], **streams)
    else:
        code = main(args, **streams)
    return code, out.getvalue(), err.getvalue()


def doc(cells=None, tray=(), colours=ROWS):
    grid = [[None] * 5 for _ in range(5)]
    for (r, c), cell in (cells or {}).items():
        grid[r][c] = cell
    return json.dumps({"colours": colours, "cells": grid, "tray": list(tray)})


PAIR = {
    (0, 0): {"kind": "end", "colour": "blue", "paths": "E"},
    (0, 1): {"kind": "end", "colour": "red", "paths": "W"},
}
THREE = [{"kind": "cross", "colour": "pink"}, {"kind": "tee", "colour": "red"},
         {"kind": "end", "colour": "green"}]  # fmt: skip


def test_score_closed_pair_is_two():
    code, out, err = run(["score"], doc(PAIR))
    assert code == 0, err
    result = json.loads(out)
    assert (result["score"], result["chip_tiles"], result["chip_value"]) == (2, 2, 2)
    assert result["penalty_tiles"] == 0
    assert result["can_finish"] is True
    assert result["spaces"][0][0]["status"] == "ok"
    assert result["spaces"][0][0]["in_chip"] is True
    assert result["spaces"][2][2] is None


def test_score_with_three_unused_tiles_is_minus_four():
    code, out, _ = run(["score"], doc(PAIR, THREE))
    result = json.loads(out)
    assert (code, result["score"], result["penalty_tiles"]) == (0, -4, 3)
    # Each tray tile lists where it could go legally.
    green_end = result["tray"][2]
    assert green_end["kind"] == "end"
    assert {"space": 2, "row": 0, "col": 2, "paths": "E"} in green_end["legal_spots"]


def test_score_markers_and_can_finish():
    cells = {
        (0, 2): {"kind": "end", "colour": "green", "paths": "N"},  # off board
        (2, 2): {"kind": "tee", "colour": "pink", "paths": "NES"},  # open paths
        (4, 4): {"kind": "end", "colour": "red", "paths": "W"},  # wrong colour (yellow)
    }
    code, out, _ = run(["score"], doc(cells))
    result = json.loads(out)
    assert code == 0
    assert result["can_finish"] is False
    assert result["spaces"][0][2]["status"] == "illegal"
    assert result["spaces"][0][2]["reasons"] == ["off_board"]
    assert result["spaces"][2][2]["status"] == "warning"
    assert result["spaces"][4][4]["reasons"] == ["wrong_colour", "open_path"]
    assert result["illegal_spaces"] == [2, 24]
    assert result["warning_spaces"] == [12]
    assert result["score"] == -6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "the input is not valid JSON"),
        ("[]", "the input must be a JSON object"),
        (doc(colours=[["blue"] * 5] * 4), '"colours" must be a list of 5 rows'),
        (
            doc(colours=[["blue"] * 5] * 4 + [["blue", "mauve", "red", "red", "red"]]),
            "colours row 4 column 1: unknown colour 'mauve'",
        ),
        (
            doc({(1, 1): {"kind": "hexagon", "colour": "blue", "paths": "N"}}),
            "cells row 1 column 1: unknown kind 'hexagon'",
        ),
        (
            doc({(1, 1): {"kind": "tee", "colour": "blue", "paths": "NS"}}),
            "paths 'NS' are not a rotation of a tee",
        ),
        (
            doc({(1, 1): {"kind": "corner", "colour": "blue", "paths": "NS"}}),
            "not a rotation of a corner (one of ES, NE, NW, SW)",
        ),
        (
            doc({(1, 1): {"kind": "end", "colour": "blue", "paths": "Q"}}),
            "paths may only use the letters N, E, S, W",
        ),
        (doc({(1, 1): {"kind": "end", "colour": "blue"}}), "a placed tile needs its paths"),
        (
            doc(tray=[{"kind": "cross", "colour": "blue"}] * 2),
            "tray tile 1: the game has no more blue cross tiles",
        ),
        (doc(tray=[{"kind": "end"}]), "tray tile 0: a tile needs a kind and a colour"),
        (doc(tray=[{"kind": "end", "colour": "red", "paths": "N"}]), "unknown field(s) paths"),
    ],
)
def test_score_bad_input(text, message):
    code, out, err = run(["score"], text)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.startswith("error: ")
    assert "Traceback" not in err


def test_deal():
    code, out, _ = run(["deal", "--players", "2", "--seed", "7"])
    result = json.loads(out)
    d = deal(2, 7)
    assert code == 0
    assert [[t["id"] for t in col] for col in result["columns"]] == [list(c) for c in d.columns]
    assert len(result["removed"]) == 10
    assert set(result["columns"][0][0]) == {"id", "kind", "colour"}
    assert len(result["boards"]) == 2
    assert all(len(board) == 5 and all(len(row) == 5 for row in board)
               for board in result["boards"])  # fmt: skip


def test_simulate():
    code, out, _ = run(["simulate", "--players", "5", "--seed", "3", "--games", "2"])
    result = json.loads(out)
    assert code == 0
    assert [g["seed"] for g in result["games"]] == [3, 4]
    for g in result["games"]:
        assert len(g["scores"]) == 5
        assert sorted(g["ranking"]) == [0, 1, 2, 3, 4]
        assert min(g["places"]) == 1


def test_bench_small():
    code, out, _ = run(["rules", "--boards", "300", "--games", "1"])
    result = json.loads(out)
    assert code == 0
    assert result["boards_scored_per_second"] > 0
    assert result["games_per_second"] > 0


@pytest.mark.parametrize(
    "args",
    [[], ["deal", "--players", "7", "--seed", "1"], ["deal", "--players", "3"],
     ["simulate", "--players", "3", "--seed", "x"], ["fly"]],
)  # fmt: skip
def test_bad_arguments(args, capsys):
    code, out, _ = run(args)
    assert code == 2
    assert out == ""
    assert "Traceback" not in capsys.readouterr().err


def test_simulate_zero_games():
    code, _, err = run(["simulate", "--players", "3", "--seed", "1", "--games", "0"])
    assert (code, err.strip()) == (2, "error: --games must be at least 1")


@pytest.mark.parametrize(("stdin", "message"), [("{", "not valid JSON"), ("[1]", "JSON object")])
def test_module_entry_point_without_traceback(stdin, message):
    proc = subprocess.run(
        [sys.executable, "-m", "games.rules", "score"],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_module_entry_point_scores():
    proc = subprocess.run(
        [sys.executable, "-m", "games.rules", "score"],
        input=doc(PAIR, THREE), capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["score"] == -4
