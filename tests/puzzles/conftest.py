import pytest

from games.history.ratings import INITIAL
from games.puzzles.models import Puzzle
from games.rules.deal import deal
from games.rules.puzzles import ArrangementPuzzle, DraftingPuzzle, greedy_score
from games.rules.solver import best_arrangement
from games.rules.tiles import TILES, Kind


def small_arrangement():
    """A small arrangement puzzle on a dealt board: an end, a straight and an end of the
    colours of three spaces in a row (a closed chip of three), and a cross that no board of
    these tiles can close (left out: 2 points)."""
    colours = deal(2, 1).board_colours[0]

    def tile(kind, colour, taken=()):
        return next(
            i
            for i, t in enumerate(TILES)
            if t.kind == kind and t.colour == colour and i not in taken
        )

    first = colours[0]
    ends = [tile(Kind.END, colours[0]), tile(Kind.STRAIGHT, colours[1])]
    ends.append(tile(Kind.END, colours[2], taken=ends))
    cross = tile(Kind.CROSS, colours[3])
    tiles = sorted([*ends, cross])
    best = best_arrangement(colours, tiles)
    assert best.score > 0 and first
    return ArrangementPuzzle(
        id="arrange000000001",
        colours=[c.value for c in colours],
        tiles=tiles,
        best_score=best.score,
        best_cells=best.board.cells_to_json(),
        played_score=-8,
        greedy_score=greedy_score(colours, tiles),
        chip_spaces=3,
        essential=3,
        runner_up=best.score - 2,
        themes=["leave_out"],
    )


def small_drafting():
    """A drafting puzzle with a made-up position: the draw column's first tile the answer."""
    state_columns = [[0, 1], [20, 33, 45]]
    return DraftingPuzzle(
        id="drafting00000001",
        players=2,
        seat=0,
        columns=state_columns,
        holdings=[[5, 6], [7, 8]],
        colours=[[c.value for c in deal(2, 1).board_colours[s]] for s in (0, 1)],
        answer=20,
        choices=[
            {"tile": 20, "value": 6.5},
            {"tile": 33, "value": 1.0},
            {"tile": 45, "value": -2.0},
        ],
        margin=5.5,
        measure="margin",
        played=45,
    )


def store(puzzle, **fields) -> Puzzle:
    return Puzzle.objects.create(
        id=puzzle.id,
        kind=puzzle.kind,
        data=puzzle.to_json(),
        themes=list(getattr(puzzle, "themes", [])),
        mu=INITIAL.mu,
        sigma=INITIAL.sigma,
        display=INITIAL.display,
        **fields,
    )


@pytest.fixture
def arrangement(db):
    return store(small_arrangement())


@pytest.fixture
def drafting(db):
    return store(small_drafting())
