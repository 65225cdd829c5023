"""The markers of a placed tile in words and sides (games/markers.py): what the tooltips show and
the screen reader says."""

from games.markers import BROKEN, COLOUR, OPEN, Mark, Marks, board_marks
from games.rules import Colour
from games.rules.tiles import E, N, S, W
from tests.rules.helpers import board


def test_a_wrong_colour_names_both_colours():
    marks = Marks("red", "blue", N | S)
    assert marks.words() == "wrong colour: a red tile on a blue space"
    assert marks.each() == (Mark(COLOUR, 0, "wrong colour: a red tile on a blue space"),)


def test_a_path_off_the_board_says_so_on_its_side():
    marks = Marks("blue", "blue", N, off=N)
    assert marks.words() == "broken connection on its north side: the path runs off the board"
    marks = Marks("blue", "blue", E | S, off=E | S)
    assert marks.words() == (
        "broken connections on its east and south sides: the paths run off the board"
    )
    assert [mark.words for mark in marks.each()] == [
        "broken connection on its east side: the path runs off the board",
        "broken connection on its south side: the path runs off the board",
    ]


def test_a_mismatch_says_which_tile_has_the_blank_side():
    path = Marks("green", "green", E, clash=E)
    assert path.words() == (
        "broken connection on its east side: it meets the blank side of the tile to the right"
    )
    blank = Marks("green", "green", E, clash=N | W)
    assert blank.words() == (
        "broken connections on its north and west sides: its blank sides meet paths of the "
        "tiles above and to the left"
    )
    assert blank.each()[0].words == (
        "broken connection on its north side: its blank side meets a path of the tile above"
    )


def test_open_paths_are_said_together_and_drawn_one_by_one():
    marks = Marks("pink", "pink", N | E | S, open=N | E | S)
    assert marks.words() == "paths open to the north, east and south"
    assert [(mark.kind, mark.side, mark.words) for mark in marks.each()] == [
        (OPEN, N, "path open to the north"),
        (OPEN, E, "path open to the east"),
        (OPEN, S, "path open to the south"),
    ]


def test_every_mark_at_once_in_the_order_drawn():
    marks = Marks("red", "pink", N | E | S | W, off=N, clash=E | S, open=W)
    assert [(mark.kind, mark.side) for mark in marks.each()] == [
        (COLOUR, 0), (BROKEN, N), (BROKEN, E), (BROKEN, S), (OPEN, W)
    ]  # fmt: skip
    assert marks.words() == "; ".join([
        "wrong colour: a red tile on a pink space",
        "broken connection on its north side: the path runs off the board",
        "broken connections on its east and south sides: they meet blank sides of the tiles "
        "to the right and below",
        "path open to the west",
    ])  # fmt: skip


def test_a_board_gives_marks_to_the_tiles_with_something_to_mark_only():
    # 0 runs off the board and is on a pink space; 1's south path meets 6's blank north side;
    # 6's east path is open; 10 and 11 are a closed pair.
    b = board(
        {0: "end:N", 1: "end:S", 6: "end:E", 10: "end:E", 11: "end:W"},
        colour_of={0: Colour.PINK},
    )
    marks = board_marks(b)
    assert marks[0] == Marks("pink", "blue", N, off=N)
    assert marks[1] == Marks("red", "red", S, clash=S)
    assert marks[6] == Marks("green", "green", E, clash=N, open=E)
    assert [space for space, mark in enumerate(marks) if mark is not None] == [0, 1, 6]
