"""The best-chip solver: exact against a brute force, legal boards, anytime, CLI, drafts."""

from __future__ import annotations

import io
import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import (
    Board,
    Colour,
    Placed,
    best_arrangement,
    best_score,
    can_finish,
    draft_values,
    fits,
    make_board_colours,
    score,
    structures,
)
from games.rules.cli import main
from games.rules.greedy import best_placement
from games.rules.solver import _COLOUR_INDEX, _Solver, _supply_of, resolve_tiles
from games.rules.tiles import DISTINCT_ROTATIONS, TILE_COLOUR, TILES, Kind

B, R, G, Y, P = Colour.BLUE, Colour.RED, Colour.GREEN, Colour.YELLOW, Colour.PINK


# --- a brute-force reference -------------------------------------------------------------------


def brute_force(colours, tiles, region) -> int:
    """Return the best score by trying every legal board whose tiles lie in `region`.

    Every space of the region in turn is left empty or given each unused tile of its colour (one
    per kind) in each distinct rotation that is legal next to the tiles already placed; each
    finished board is scored by `analysis.score` with the unused tiles in the tray.
    """
    tiles = list(tiles)
    best = -2 * len(tiles)

    def walk(k: int, board: Board, free: list[int]) -> None:
        nonlocal best
        if k == len(region):
            if can_finish(board):
                best = max(best, score(board, len(free)).score)
            return
        walk(k + 1, board, free)
        space = region[k]
        seen = set()
        for tile in free:
            key = (TILES[tile].kind, TILES[tile].colour)
            if TILE_COLOUR[tile] is not colours[space] or key in seen:
                continue
            seen.add(key)
            rest = [t for t in free if t != tile]
            for rotation in DISTINCT_ROTATIONS[TILES[tile].kind]:
                if fits(board, tile, space, rotation):
                    walk(k + 1, board.with_cells({space: Placed(tile, rotation)}), rest)

    walk(0, Board(colours), tiles)
    return best


def region_case(rng: random.Random, region: list[int], count: int):
    """Return (colours, tiles): the region's spaces blue or red, the others green, yellow or
    pink, and `count` blue and red tiles, mostly ends and corners (which close small chips), so
    tiles can only go in the region."""
    colours = [rng.choice((G, Y, P)) for _ in range(25)]
    for space in region:
        colours[space] = rng.choice((B, R))
    pool = [t for t in range(60) if TILE_COLOUR[t] in (B, R)]
    weight = {Kind.END: 4, Kind.CORNER: 6, Kind.STRAIGHT: 2, Kind.TEE: 1, Kind.CROSS: 2}
    tiles: list[int] = []
    while len(tiles) < count:
        tile = rng.choices(pool, [weight[TILES[t].kind] for t in pool])[0]
        pool.remove(tile)
        tiles.append(tile)
    return colours, tiles


def block(row: int, col: int, rows: int, cols: int) -> list[int]:
    return [(row + r) * 5 + col + c for r in range(rows) for c in range(cols)]


REGIONS = [
    block(0, 0, 2, 2),  # a corner
    block(1, 1, 2, 2),  # inside
    block(3, 2, 2, 3),  # on the bottom edge
    block(0, 0, 1, 5),  # the top row
    block(2, 0, 3, 2),  # on the left edge
    block(1, 1, 3, 3),  # the middle
]


@pytest.mark.parametrize("case", range(36))
def test_solver_matches_brute_force_on_small_regions(case):
    rng = random.Random(case)
    region = REGIONS[case % len(REGIONS)]
    count = rng.randint(3, 6 if len(region) <= 6 else 5)
    colours, tiles = region_case(rng, region, count)
    result = best_arrangement(colours, tiles)
    assert result.optimal
    assert result.score == brute_force(colours, tiles, region)


def test_brute_force_reference_sees_the_seed_example():
    # Two facing ends make a chip worth 2; a third tile that cannot join costs 2.
    colours = [G] * 25
    colours[0], colours[1], colours[4] = B, R, B
    tiles = [0, 12, 1]  # blue end, red end, blue end
    assert brute_force(colours, tiles, [0, 1, 4]) == 0
    assert best_score(colours, tiles) == 0


def test_solver_with_the_lagrangian_bound_from_the_start_matches_brute_force():
    for case in range(12):
        rng = random.Random(1000 + case)
        region = REGIONS[case % len(REGIONS)]
        colours, tiles = region_case(rng, region, rng.randint(3, 6 if len(region) <= 6 else 5))
        solver = _Solver([_COLOUR_INDEX[c] for c in colours], _supply_of(tiles), None)
        solver.use_lagrangian()
        assert solver.lag_bound >= solver.best
        assert solver.solve(node_limit=None)
        assert solver.best - 2 * len(tiles) == brute_force(colours, tiles, region)


# --- known answers -----------------------------------------------------------------------------


def test_no_tiles_scores_zero_and_a_lone_tile_costs_two():
    colours = make_board_colours(random.Random(1), ())
    empty = best_arrangement(colours, [])
    assert (empty.score, empty.tiles_used, empty.optimal) == (0, (), True)
    assert empty.board.tile_count == 0
    assert best_score(colours, [11]) == -2  # a cross alone cannot close


def test_a_ring_of_four_corners():
    # A 2x2 ring of corners is worth 8 with nothing left over; two corners alone cannot close.
    colours = [Y] * 25
    colours[6] = colours[12] = B
    colours[7] = colours[11] = G
    four = [(Kind.CORNER, B)] * 2 + [(Kind.CORNER, G)] * 2
    result = best_arrangement(colours, four)
    assert (result.score, len(result.tiles_used), result.chip_value) == (8, 4, 8)
    assert best_score(colours, four[:2]) == -4


def test_tiles_given_by_kind_and_colour_take_free_ids():
    assert resolve_tiles([("end", "blue"), (Kind.END, B), 2]) == (2, 0, 1)
    with pytest.raises(ValueError, match="no more blue cross"):
        resolve_tiles([("cross", "blue"), ("cross", "blue")])
    with pytest.raises(ValueError, match="twice"):
        resolve_tiles([3, 3])
    with pytest.raises(ValueError, match="no tile 60"):
        resolve_tiles([60])
    with pytest.raises(ValueError):
        resolve_tiles([("plane", "blue")])
    with pytest.raises(ValueError, match="25 spaces"):
        best_arrangement([B] * 24, [])


# --- every board is legal and scores what is claimed -------------------------------------------


def greedy_score(colours, tiles) -> int:
    """The score of the simulated players' greedy arrangement (a lower bound of the best)."""
    board, tray = Board(colours), list(tiles)
    while tray:
        found = best_placement(board, tray)
        if found is None:
            break
        place = found[1]
        board = board.with_cells({place.space: Placed(place.tile_id, place.rotation)})
        tray.remove(place.tile_id)
    return score(board, len(tray)).score


def check_result(colours, tiles, result) -> None:
    board = result.board
    assert board.colours == tuple(colours)
    assert can_finish(board)
    placed = board.tiles()
    assert sorted(placed) == sorted(result.tiles_used)
    assert set(placed) <= set(tiles) and len(set(placed)) == len(placed)
    assert sorted(result.tray + result.tiles_used) == sorted(tiles)
    assert score(board, len(result.tray)).score == result.score
    chips = [s for s in structures(board) if s.closed]
    assert len(structures(board)) == len(chips) <= 1
    assert result.score >= -2 * len(tiles)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), count=st.integers(0, 12))
def test_boards_are_legal_and_rescore_to_the_claimed_value(seed, count):
    rng = random.Random(seed)
    colours = make_board_colours(rng, ())
    tiles = rng.sample(range(60), count)
    result = best_arrangement(colours, tiles)
    assert result.optimal
    check_result(colours, tiles, result)
    assert result.score >= greedy_score(colours, tiles)


def test_dealt_sized_trays_solve_and_rescore():
    for count in (12, 15, 20):
        rng = random.Random(count)
        colours = make_board_colours(rng, ())
        tiles = rng.sample(range(60), count)
        result = best_arrangement(colours, tiles)
        assert result.optimal
        check_result(colours, tiles, result)
        assert result.score >= greedy_score(colours, tiles)


# --- anytime -----------------------------------------------------------------------------------

#: A deal of 25 tiles that takes the full search about a second.
HARD_SEED, HARD_COUNT = 38, 25


def hard_case():
    rng = random.Random(HARD_SEED * 1000 + HARD_COUNT)
    colours = make_board_colours(rng, ())
    return colours, rng.sample(range(60), HARD_COUNT)


@pytest.mark.parametrize("limit", [0.0, 0.02, 0.1])
def test_anytime_mode_returns_within_its_limit(limit):
    # The CPU it spent, not the wall-clock time: on a loaded machine the process waits for a
    # core, but a search that ignored its limit would go on computing far past it.
    colours, tiles = hard_case()
    start = time.process_time()
    result = best_arrangement(colours, tiles, time_limit=limit)
    elapsed = time.process_time() - start
    assert elapsed < limit + 0.25
    assert result.optimal is False
    check_result(colours, tiles, result)


def test_anytime_mode_with_room_to_spare_is_optimal():
    rng = random.Random(5)
    colours = make_board_colours(rng, ())
    tiles = rng.sample(range(60), 8)
    quick = best_arrangement(colours, tiles, time_limit=30)
    assert quick.optimal
    assert quick.score == best_score(colours, tiles)


# --- draft values ------------------------------------------------------------------------------


def test_draft_values_are_the_gain_in_best_score():
    rng = random.Random(7)
    colours = make_board_colours(rng, ())
    ids = rng.sample(range(60), 10)
    owned, candidates = ids[:6], ids[6:]
    values = draft_values(colours, owned, candidates, time_limit=None)
    base = best_score(colours, owned)
    assert list(values) == candidates
    for tile, value in values.items():
        assert value == best_score(colours, [*owned, tile]) - base
        assert value >= -2


def test_draft_values_give_equal_tiles_equal_values_and_respect_time():
    colours, tiles = hard_case()
    owned, candidates = tiles[:20], [t for t in range(60) if t not in tiles][:5]
    start = time.process_time()  # CPU, as above
    values = draft_values(colours, owned, candidates, time_limit=0.5)
    assert time.process_time() - start < 0.5 + 0.4
    assert set(values) == set(candidates)
    assert all(v >= -2 for v in values.values())
    with pytest.raises(ValueError, match="already owned"):
        draft_values(colours, owned, owned[:1])


# --- command line ------------------------------------------------------------------------------

ROWS = [[c.value for c in (B, R, G, Y, P)][r:] + [c.value for c in (B, R, G, Y, P)][:r]
        for r in range(5)]  # fmt: skip


def run(args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_best_round_trips_through_score():
    rng = random.Random(3)
    tray = [{"kind": TILES[t].kind.value, "colour": TILES[t].colour.value}
            for t in rng.sample(range(60), 12)]  # fmt: skip
    code, out, err = run(["best"], json.dumps({"colours": ROWS, "tray": tray}))
    assert code == 0, err
    best = json.loads(out)
    assert best["optimal"] is True and isinstance(best["seconds"], float)
    assert sum(cell is not None for row in best["cells"] for cell in row) == best["chip_tiles"]
    assert best["chip_tiles"] + len(best["tray"]) == 12
    code, out, err = run(
        ["score"], json.dumps({"colours": ROWS, "cells": best["cells"], "tray": best["tray"]})
    )
    assert code == 0, err
    scored = json.loads(out)
    assert scored["score"] == best["score"]
    assert scored["can_finish"] is True
    assert scored["chip_value"] == best["chip_value"]


def test_cli_best_with_a_time_limit_and_placed_tiles():
    cells = [[None] * 5 for _ in range(5)]
    cells[0][0] = {"kind": "end", "colour": "blue", "paths": "N"}  # illegal, but owned
    tray = [{"kind": "end", "colour": "red"}]
    doc = json.dumps({"colours": ROWS, "cells": cells, "tray": tray})
    code, out, err = run(["best", "--time-limit", "5"], doc)
    assert code == 0, err
    result = json.loads(out)
    assert result["score"] == 2  # the two ends face each other at spaces 0 and 1
    assert result["cells"][0][0] == {"kind": "end", "colour": "blue", "paths": "E"}


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["best"], "not json", "not valid JSON"),
        (["best"], "[]", "must be a JSON object"),
        (["best"], json.dumps({"colours": ROWS[:4]}), '"colours" must be a list of 5 rows'),
        (["best"], json.dumps({"colours": ROWS, "tray": [{"kind": "end", "colour": "teal"}]}),
         "unknown colour"),
        (["best"], json.dumps({"colours": ROWS, "tray": [{"kind": "cross", "colour": "red"}] * 2}),
         "no more red cross"),
        (["best"], json.dumps({"colours": ROWS, "tray": "end"}), '"tray" must be a list'),
        (["best"], json.dumps({"colours": ROWS, "extra": 1}), "unknown field"),
        (["best", "--time-limit", "0"], json.dumps({"colours": ROWS}), "--time-limit"),
        (["best", "--time-limit", "nan"], json.dumps({"colours": ROWS}), "--time-limit"),
    ],
)  # fmt: skip
def test_cli_best_bad_input(args, stdin, message):
    code, out, err = run(args, stdin)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err


def test_cli_best_bad_time_limit_is_a_usage_error():
    code, _, err = run(["best", "--time-limit", "soon"], "{}")
    assert code == 2
    assert "Traceback" not in err
