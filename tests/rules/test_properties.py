"""Property-based tests: random playouts (OpenSpiel's random_sim_test) and a naive scorer."""

import json
import random
from dataclasses import fields

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_rules import random_board
from games.rules import (
    Board,
    Colour,
    Draft,
    GameState,
    Placed,
    RuleError,
    diagnose,
    drafts_per_player,
    legal_spots,
    markers,
    new_game,
    replay,
    score,
    structures,
)
from games.rules.actions import ACTION_TYPES
from games.rules.analysis import side_markers
from games.rules.tiles import DISTINCT_ROTATIONS, TILES

from .helpers import play_randomly, ref_score, ref_sides, ref_statuses, where_is

PLAYOUT = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOARDS = settings(max_examples=150, deadline=None)

players_st = st.sampled_from([2, 3, 4, 5])
seed_st = st.integers(-(2**63), 2**63)


def check_invariants(state: GameState) -> None:
    places = where_is(state)  # fails if a tile is in two places
    assert len(places) == 60
    assert len(state.removed) == (10 if state.players == 2 else 0)
    state.validate()  # counters, phase, pending draft, current seat...
    target = drafts_per_player(state.players)
    counts = [state.drafted(seat) for seat in range(state.players)]
    # Turns go round in seat order, so draft counts never differ by more than one.
    assert max(counts) - min(counts) <= 1
    assert max(counts) <= target


@PLAYOUT
@given(players=players_st, seed=seed_st, play_seed=st.integers(0, 2**32))
def test_random_playouts_keep_the_invariants(players, seed, play_seed):
    rng = random.Random(play_seed)
    steps = [0]

    def check(state):
        check_invariants(state)
        steps[0] += 1
        if steps[0] % 25 == 0:
            assert GameState.from_json(json.loads(json.dumps(state.to_json()))) == state

    final, events = play_randomly(new_game(players, seed), rng, check=check)
    target = drafts_per_player(players)
    assert [final.drafted(s) for s in range(players)] == [target] * players
    assert final.is_terminal()
    assert GameState.from_json(json.loads(json.dumps(final.to_json()))) == final
    log = json.loads(json.dumps([(seat, a.to_json()) for seat, a in events]))
    assert replay(players, seed, log) == final
    results = final.results()
    assert sorted(r.place for r in results)[0] == 1
    for r in results:
        assert r.score == r.chip_value - 2 * r.penalty_tiles


@settings(max_examples=8, deadline=None)
@given(players=players_st, seed=seed_st, play_seed=st.integers(0, 2**32))
def test_every_legal_action_applies_and_drafts_are_exactly_the_listed_ones(
    players, seed, play_seed
):
    rng = random.Random(play_seed)
    state = new_game(players, seed)
    # Walk a random number of steps, then try every listed action of every seat.
    _, events = play_randomly(state, rng)
    cut = rng.randrange(len(events))
    state = replay(players, seed, events[:cut])
    for seat in range(players):
        actions = state.legal_actions(seat)
        assert len(set(actions)) == len(actions)
        for action in actions:
            after = state.apply(action, seat)
            check_invariants(after)
        drafts = {a for a in actions if isinstance(a, Draft)}
        for tile in range(60):
            try:
                state.apply(Draft(tile), seat)
                ok = True
            except RuleError:
                ok = False
            assert ok == (Draft(tile) in drafts)


junk_action = st.builds(
    lambda kind, a, b, c: {
        "type": kind,
        **dict(zip(("tile_id", "space", "rotation"), (a, b, c), strict=True)),
    },
    st.sampled_from(sorted(ACTION_TYPES)),
    st.integers(-2, 61),
    st.integers(-2, 26),
    st.integers(-1, 4),
)


@settings(max_examples=60, deadline=None)
@given(
    players=players_st,
    seed=seed_st,
    play_seed=st.integers(0, 2**32),
    junk=st.lists(st.tuples(st.integers(-1, 5), junk_action), max_size=30),
)
def test_any_action_is_applied_or_refused_cleanly(players, seed, play_seed, junk):
    rng = random.Random(play_seed)
    state = new_game(players, seed)
    _, events = play_randomly(state, rng)
    state = replay(players, seed, events[: rng.randrange(len(events))])
    for seat, data in junk:
        cls = ACTION_TYPES[data["type"]]
        names = [f.name for f in fields(cls)]
        values = list(data.values())[1:]
        action = cls(*values[: len(names)]) if names else cls()
        before = state
        try:
            state = state.apply(action, seat)
        except RuleError as exc:
            assert exc.code and exc.message
            assert state is before
        else:
            check_invariants(state)


# --- scoring against a naive reference ---------------------------------------------------------

colours_st = st.permutations([c for c in Colour for _ in range(5)])
cells_st = st.dictionaries(
    st.integers(0, 24), st.tuples(st.integers(0, 59), st.integers(0, 3)), max_size=25
)


def check_board(board: Board, tray: int) -> None:
    s = score(board, tray)
    assert (s.score, s.chip_tiles, s.chip_value) == ref_score(board, tray)
    assert s.penalty_tiles == board.tile_count + tray - s.chip_tiles
    got = [None if x is None else x.status for x in diagnose(board)]
    assert got == ref_statuses(board)
    check_sides(board)
    found = structures(board)
    assert sum(x.tiles for x in found) == board.tile_count
    closed = [(x.tiles, x.value) for x in found if x.closed]
    assert max(closed, default=(0, 0)) == (s.chip_tiles, s.chip_value)


def check_sides(board: Board) -> None:
    """The sides agree with the naive reference, and with `markers`: a tile has a wrong side
    iff it is off the board or mismatched, an open side iff it has an open path."""
    sides, m = side_markers(board), markers(board)
    assert sides.wrong.tiles == m.off_board | m.mismatch
    assert (sides.off_board.tiles, sides.mismatch.tiles) == (m.off_board, m.mismatch)
    assert sides.open_path.tiles == m.open_path
    got = {
        space: (sides.off_board.at(space), sides.mismatch.at(space), sides.open_path.at(space))
        for space, _ in board.placed()
    }
    assert got == ref_sides(board)
    empty = ~board.occ
    for mask in (*sides.off_board, *sides.mismatch, *sides.open_path):
        assert mask & empty == 0  # only placed tiles have sides


@BOARDS
@given(colours=colours_st, cells=cells_st, tray=st.integers(0, 25))
def test_score_and_markers_match_the_naive_reference(colours, cells, tray):
    placed = [None] * 25
    for space, (tile, rotation) in cells.items():
        placed[space] = Placed(tile, rotation)
    check_board(Board(colours, placed), tray)


@BOARDS
@given(seed=st.integers(0, 2**32))
def test_score_matches_reference_on_legal_ish_boards(seed):
    board, tray = random_board(random.Random(seed))
    check_board(board, tray)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), tile=st.integers(0, 59))
def test_legal_spots_match_the_markers(seed, tile):
    board, _ = random_board(random.Random(seed))
    board = board.with_cells({i: None for i, c in board.placed() if c.tile == tile})
    expected = []
    for space in range(25):
        if board.cells[space] is not None:
            continue
        for rotation in DISTINCT_ROTATIONS[TILES[tile].kind]:
            after = board.with_cells({space: Placed(tile, rotation)})
            if ref_statuses(after)[space] != "illegal":
                expected.append((space, rotation))
    assert legal_spots(board, tile) == expected


@BOARDS
@given(colours=colours_st, cells=cells_st)
def test_incremental_masks_equal_a_fresh_board(colours, cells):
    board = Board(colours)
    for space, (tile, rotation) in cells.items():
        board = board.with_cells({space: Placed(tile, rotation)})
    fresh = Board(colours, board.cells)
    assert (board.occ, board.n, board.e, board.s, board.w, board.wrong) == (
        fresh.occ, fresh.n, fresh.e, fresh.s, fresh.w, fresh.wrong,
    )  # fmt: skip
    for space in list(cells)[::2]:
        board = board.with_cells({space: None})
    fresh = Board(colours, board.cells)
    assert (board.occ, board.n, board.e, board.s, board.w, board.wrong) == (
        fresh.occ, fresh.n, fresh.e, fresh.s, fresh.w, fresh.wrong,
    )  # fmt: skip
