from collections import Counter

import pytest

from games.rules import TILES, Colour, Kind
from games.rules.tiles import (
    DISTINCT_ROTATIONS,
    KIND_PATHS,
    E,
    N,
    S,
    W,
    letters_to_paths,
    paths_to_letters,
    rotate_paths,
    rotation_for,
)


def test_sixty_tiles_twelve_per_colour_with_the_kind_counts():
    assert len(TILES) == 60
    assert [t.id for t in TILES] == list(range(60))
    assert Counter(t.colour for t in TILES) == {c: 12 for c in Colour}
    per_colour = Counter(t.kind for t in TILES if t.colour is Colour.BLUE)
    assert per_colour == {Kind.END: 4, Kind.STRAIGHT: 2, Kind.CORNER: 2, Kind.TEE: 3, Kind.CROSS: 1}


def test_ids_are_stable_colour_major():
    assert TILES[0] == TILES[0].__class__(0, Kind.END, Colour.BLUE)
    assert (TILES[11].kind, TILES[11].colour) == (Kind.CROSS, Colour.BLUE)
    assert (TILES[12].kind, TILES[12].colour) == (Kind.END, Colour.RED)
    assert (TILES[59].kind, TILES[59].colour) == (Kind.CROSS, Colour.PINK)
    assert [TILES[i].kind for i in range(12)] == [Kind.END] * 4 + [Kind.STRAIGHT] * 2 + [
        Kind.CORNER
    ] * 2 + [Kind.TEE] * 3 + [Kind.CROSS]


def test_values_are_connection_counts():
    assert {k: TILES[[t.kind for t in TILES].index(k)].value for k in Kind} == {
        Kind.END: 1, Kind.STRAIGHT: 2, Kind.CORNER: 2, Kind.TEE: 3, Kind.CROSS: 4,
    }  # fmt: skip


def test_base_orientations_start_north_and_go_clockwise():
    assert [paths_to_letters(KIND_PATHS[k][0]) for k in Kind] == ["N", "NS", "NE", "NES", "NESW"]


def test_rotation_is_clockwise_quarter_turns():
    assert rotate_paths(N) == E
    assert rotate_paths(E) == S
    assert rotate_paths(S) == W
    assert rotate_paths(W) == N
    assert [paths_to_letters(p) for p in KIND_PATHS[Kind.TEE]] == ["NES", "ESW", "NSW", "NEW"]
    assert [paths_to_letters(p) for p in KIND_PATHS[Kind.CORNER]] == ["NE", "ES", "SW", "NW"]
    assert rotate_paths(N | E, 4) == N | E


def test_distinct_rotations():
    assert DISTINCT_ROTATIONS == {
        Kind.END: (0, 1, 2, 3), Kind.STRAIGHT: (0, 1), Kind.CORNER: (0, 1, 2, 3),
        Kind.TEE: (0, 1, 2, 3), Kind.CROSS: (0,),
    }  # fmt: skip


def test_letters():
    assert letters_to_paths("NES") == N | E | S
    assert letters_to_paths("sen") == N | E | S
    assert letters_to_paths("") == 0
    for bad in ("NX", "NN", 5):
        with pytest.raises(ValueError):
            letters_to_paths(bad)
    assert rotation_for(Kind.TEE, letters_to_paths("NES")) == 0
    assert rotation_for(Kind.STRAIGHT, letters_to_paths("EW")) == 1
    assert rotation_for(Kind.STRAIGHT, letters_to_paths("NE")) is None
    assert rotation_for(Kind.END, 0) is None
