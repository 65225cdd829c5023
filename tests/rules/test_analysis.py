import pytest

from games.rules import (
    Colour,
    Kind,
    can_finish,
    diagnose,
    find_chip,
    legal_moves,
    legal_spots,
    markers,
    score,
    structures,
)
from games.rules.analysis import Sides, fits, open_ends, side_markers
from games.rules.tiles import E, N, S, W

from .helpers import LATIN, board, tile_id

# LATIN colours: row r, column c has colour (blue, red, green, yellow, pink)[(r + c) % 5].

PAIR = {0: "end:E", 1: "end:W"}


def statuses(b):
    return {i: (s.status, s.reasons) for i, s in enumerate(diagnose(b)) if s is not None}


def test_empty_board_scores_minus_two_per_owned_tile():
    b = board({})
    assert score(b, 0).score == 0
    assert score(b, 7) == (-14, 0, 0, 7, 0)
    assert can_finish(b)


def test_seed_example_closed_pair_of_terminals_is_worth_two():
    s = score(board(PAIR), 0)
    assert (s.score, s.chip_tiles, s.chip_value, s.penalty_tiles) == (2, 2, 2, 0)


def test_seed_example_with_three_unused_tiles_is_minus_four():
    assert score(board(PAIR), 3).score == 2 - 6 == -4


def test_open_structure_scores_nothing():
    b = board({0: "end:E", 1: "straight:EW"})
    assert score(b, 0) == (-4, 0, 0, 2, 0)


def test_other_structures_cost_two_per_tile():
    # A closed pair and an open pair: the open tiles are penalised like tray tiles.
    b = board({**PAIR, 10: "end:E", 11: "straight:EW"})
    assert score(b, 1) == (2 - 2 * 3, 2, 2, 3, 0b11)


def test_blank_against_blank_does_not_join():
    b = board({**PAIR, 5: "end:E", 6: "end:W"})
    found = structures(b)
    assert [(s.spaces, s.closed) for s in found] == [([0, 1], True), ([5, 6], True)]
    assert score(b, 0).chip_tiles == 2
    assert score(b, 0).score == 2 - 4


def test_path_off_the_board_is_never_closed():
    b = board({0: "straight:EW", 1: "end:W"})
    assert find_chip(b.occ, b.n, b.e, b.s, b.w).tiles == 0
    assert structures(b)[0].closed is False


def test_microchip_is_the_closed_structure_with_most_tiles_even_if_worth_less():
    tree = {0: "end:E", 1: "straight:EW", 2: "straight:EW", 3: "straight:EW", 4: "corner:SW",
            9: "straight:NS", 14: "end:N"}  # fmt: skip
    grid = {15: "corner:ES", 16: "tee:ESW", 17: "corner:SW", 20: "corner:NE", 21: "tee:NEW",
            22: "corner:NW"}  # fmt: skip
    b = board({**tree, **grid})
    assert sorted((s.tiles, s.value, s.closed) for s in structures(b)) == [
        (6, 14, True),
        (7, 12, True),
    ]
    s = score(b, 0)
    assert (s.chip_tiles, s.chip_value, s.score) == (7, 12, 12 - 2 * 6)


def test_equal_size_closed_structures_the_higher_value_counts():
    ring = {15: "corner:ES", 16: "corner:SW", 20: "corner:NE", 21: "corner:NW"}  # value 8
    line = {0: "end:E", 1: "straight:EW", 2: "straight:EW", 3: "end:W"}  # value 6
    for cells in ({**ring, **line}, {**line, **ring}):
        s = score(board(cells), 0)
        assert (s.chip_tiles, s.chip_value, s.score) == (4, 8, 0)
        assert s.chip_mask == sum(1 << i for i in ring)


def test_tee_with_three_terminals():
    b = board({7: "tee:ESW", 6: "end:E", 8: "end:W", 12: "end:N"})
    assert score(b, 0)[:3] == (6, 4, 6)


def test_values_count_every_connection():
    plus = {7: "end:S", 11: "end:E", 12: "cross:NESW", 13: "end:W", 17: "end:N"}
    assert score(board(plus), 0)[:3] == (8, 5, 8)


# --- markers -----------------------------------------------------------------------------------


def test_marker_ok():
    assert statuses(board(PAIR)) == {0: ("ok", ()), 1: ("ok", ())}


def test_marker_warning_open_path():
    assert statuses(board({12: "end:N"})) == {12: ("warning", ("open_path",))}
    assert can_finish(board({12: "end:N"}))


def test_marker_illegal_wrong_colour():
    b = board(PAIR, colour_of={0: Colour.RED})
    assert statuses(b)[0] == ("illegal", ("wrong_colour",))
    assert statuses(b)[1] == ("ok", ())
    assert not can_finish(b)
    # Colours do not change the score; they only block finishing.
    assert score(b, 0).score == 2


def test_marker_illegal_off_board_on_every_edge():
    for space, spec in ((2, "end:N"), (14, "end:E"), (22, "end:S"), (10, "end:W")):
        assert statuses(board({space: spec})) == {space: ("illegal", ("off_board",))}


def test_marker_illegal_mismatch_marks_both_tiles():
    b = board({6: "end:E", 7: "end:S"})  # 6's path meets 7's blank west side
    assert statuses(b) == {
        6: ("illegal", ("mismatch",)),
        7: ("illegal", ("mismatch", "open_path")),  # illegal beats warning
    }
    assert not can_finish(b)


def test_mismatch_vertically():
    b = board({7: "end:S", 12: "end:E"})
    assert statuses(b)[7] == ("illegal", ("mismatch",))
    assert statuses(b)[12][0] == "illegal"


def test_several_reasons_at_once():
    b = board({0: "end:N", 1: "end:S"}, colour_of={0: Colour.PINK})
    assert statuses(b)[0] == ("illegal", ("wrong_colour", "off_board"))
    assert statuses(b)[1] == ("warning", ("open_path",))


def test_markers_masks_and_open_ends():
    b = board({6: "end:E", 7: "end:S", 12: "cross:NESW"})
    m = markers(b)
    assert m.mismatch == 1 << 6 | 1 << 7
    assert m.open_path == 1 << 12
    assert m.warning == 1 << 12
    assert open_ends(b) == 3


# --- markers side by side ----------------------------------------------------------------------


def sides_at(b, space):
    """(off board, mismatch, open) side masks of the tile at `space`."""
    m = side_markers(b)
    return m.off_board.at(space), m.mismatch.at(space), m.open_path.at(space)


def test_a_closed_pair_has_no_side_marked():
    m = side_markers(board(PAIR))
    assert m.off_board == m.mismatch == m.open_path == Sides(0, 0, 0, 0)


def test_a_path_off_the_board_is_marked_on_its_side_only():
    # A straight in the top-left corner running west-east: only its west side is off the board
    # (its east path meets the end beside it).
    b = board({0: "straight:EW", 1: "end:W"})
    assert sides_at(b, 0) == (W, 0, 0)
    assert sides_at(b, 1) == (0, 0, 0)
    # A cross in a corner: two sides off the board, two open.
    assert sides_at(board({24: "cross:NESW"}), 24) == (E | S, 0, N | W)
    edges = ((2, "end:N", N), (14, "end:E", E), (22, "end:S", S), (10, "end:W", W))
    for space, spec, side in edges:
        assert sides_at(board({space: spec}), space) == (side, 0, 0)


def test_a_mismatch_is_marked_on_the_facing_side_of_both_tiles():
    b = board({6: "end:E", 7: "end:S"})  # 6's path meets 7's blank west side
    assert sides_at(b, 6) == (0, E, 0)
    assert sides_at(b, 7) == (0, W, S)  # the blank side disagrees too; its own path is open
    b = board({7: "end:S", 12: "end:E"})  # 7's path meets 12's blank north side
    assert sides_at(b, 7) == (0, S, 0)
    assert sides_at(b, 12) == (0, N, E)


def test_only_the_disagreeing_sides_of_a_tile_are_marked():
    # A cross at 12 met from the north and the west, against a blank to the east, open south.
    b = board({7: "end:S", 11: "end:E", 12: "cross:NESW", 13: "end:S"})
    assert sides_at(b, 12) == (0, E, S)
    assert sides_at(b, 7) == (0, 0, 0) and sides_at(b, 11) == (0, 0, 0)
    assert sides_at(b, 13) == (0, W, S)


def test_blank_against_blank_is_no_mismatch():
    b = board({**PAIR, 5: "end:E", 6: "end:W"})  # 0 and 5 (and 1 and 6) touch blank to blank
    assert side_markers(b).wrong.tiles == 0


def test_a_wrong_coloured_tile_has_no_wrong_side_of_its_own():
    b = board(PAIR, colour_of={0: Colour.RED})
    assert side_markers(b).wrong.tiles == 0
    assert markers(b).illegal == 1


def test_sides_per_mask_and_the_wrong_ones_together():
    b = board({0: "end:N", 1: "end:S", 6: "end:E"})
    m = side_markers(b)
    assert m.off_board == Sides(1 << 0, 0, 0, 0)
    # 1's south path meets 6's blank north side; 6's east path points at an empty space.
    assert m.mismatch == Sides(1 << 6, 0, 1 << 1, 0)
    assert m.open_path == Sides(0, 1 << 6, 0, 0)
    assert m.wrong == Sides(1 << 0 | 1 << 6, 0, 1 << 1, 0)
    assert m.wrong.tiles == 1 << 0 | 1 << 1 | 1 << 6
    assert m.wrong.at(6) == N and m.open_path.at(6) == E


# --- legal spots -------------------------------------------------------------------------------


def test_legal_spots_on_empty_board():
    blue_end = tile_id(Kind.END, Colour.BLUE)
    # Blue spaces of LATIN: 0, 9, 13, 17, 21. Rotations: 0=N, 1=E, 2=S, 3=W.
    assert legal_spots(board({}), blue_end) == [
        (0, 1), (0, 2),
        (9, 0), (9, 2), (9, 3),
        (13, 0), (13, 1), (13, 2), (13, 3),
        (17, 0), (17, 1), (17, 2), (17, 3),
        (21, 0), (21, 1), (21, 3),
    ]  # fmt: skip


def test_legal_spots_one_rotation_per_distinct_orientation():
    blue_cross = tile_id(Kind.CROSS, Colour.BLUE)
    assert legal_spots(board({}), blue_cross) == [(13, 0), (17, 0)]
    blue_straight = tile_id(Kind.STRAIGHT, Colour.BLUE)
    assert legal_spots(board({}), blue_straight) == [(9, 0), (13, 0), (13, 1), (17, 0), (17, 1),
                                                    (21, 1)]  # fmt: skip


def test_legal_spots_respect_neighbours():
    # A red tee at 8 pointing west (tee:NSW) and a blank north/east/south elsewhere.
    b = board({8: "tee:NSW"})
    green_end = tile_id(Kind.END, Colour.GREEN)  # green spaces: 2, 6, 10, 19, 23
    spots = legal_spots(b, green_end)
    # Space 7 is yellow, so look at the green space 2: neighbours 1, 3 empty, 7 empty: free.
    assert (2, 1) in spots
    # A blue end at 13 (below 8, which has a south path) must point north.
    blue_end = tile_id(Kind.END, Colour.BLUE)
    assert [r for s, r in legal_spots(b, blue_end) if s == 13] == [0]
    # And a blue end at 9 (east of 8, whose east side is blank) must not point west.
    assert [r for s, r in legal_spots(b, blue_end) if s == 9] == [0, 2]


def test_legal_spots_skip_occupied_and_other_colours():
    blue_end = tile_id(Kind.END, Colour.BLUE)
    b = board({13: "cross:NESW"}, colour_of={13: Colour.BLUE})
    assert all(s != 13 for s, _ in legal_spots(b, blue_end))
    assert all(LATIN[s] is Colour.BLUE for s, _ in legal_spots(b, blue_end))


def test_legal_moves_keep_the_rotation():
    # A blue end at 13 pointing north, into the red tee at 8 (its south path). Blue spaces: 0,
    # 9, 13, 17, 21. On 0 its path would run off the board; 9, 17 and 21 take it as it is.
    assert legal_moves(board({8: "tee:NSW", 13: "end:N"}), 13) == [9, 17, 21]
    # Pointing east it fits on 0, 17 and 21; on 9 its path would run off the board.
    assert legal_moves(board({8: "tee:NSW", 13: "end:E"}), 13) == [0, 17, 21]
    assert legal_moves(board({8: "tee:NSW"}), 13) == []  # no tile there


@pytest.mark.parametrize("space", range(25))
def test_fits_agrees_with_markers(space):
    # Placing a tile where `fits` says yes never gives it (or anyone) an illegal marker.
    base = board({12: "cross:NESW", 6: "corner:ES"})
    for tile in range(60):
        for rotation in range(4):
            if fits(base, tile, space, rotation):
                from games.rules import Placed

                after = base.with_cells({space: Placed(tile, rotation)})
                assert markers(after).illegal == markers(base).illegal
