"""Standings: points per place, then the opponents' points, then the game score, then shared;
withdrawn players' games keep counting; the crosstable of a section."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments.formats import FormatError, PlacePoints
from games.tournaments.standings import GameRecord, crosstable, game_points, standings

HALF = Fraction(1, 2)


def by_player(rows):
    return {row.player: row for row in rows}


def test_points_then_the_opponents_points_decide_the_order():
    # Round 1: 0 beats 1, 2 beats 3. Round 2: 0 beats 2, 3 beats 1. Round 3: 1 beats 2, 3 beats 0.
    games = [
        GameRecord((0, 1), (1, 2)), GameRecord((2, 3), (1, 2)),
        GameRecord((0, 2), (1, 2)), GameRecord((3, 1), (1, 2)),
        GameRecord((1, 2), (1, 2)), GameRecord((3, 0), (1, 2)),
    ]  # fmt: skip
    rows = standings([0, 1, 2, 3], games, PlacePoints())
    table = by_player(rows)
    assert [table[p].points for p in range(4)] == [2, 1, 1, 2]
    # 0 met 1, 2, 3 (1 + 1 + 2 = 4); 3 met 2, 1, 0 (1 + 1 + 2 = 4): level, then game score (none)
    assert table[0].opponents_points == table[3].opponents_points == 4
    assert [row.player for row in rows] == [0, 3, 1, 2]
    assert [row.place for row in rows] == [1, 1, 3, 3]
    assert all(row.shared for row in rows)


def test_the_game_score_breaks_a_tie_the_opponents_points_leave():
    games = [
        GameRecord((0, 1), (1, 2), (30, 20)),
        GameRecord((2, 3), (1, 2), (31, 10)),
    ]
    rows = standings([0, 1, 2, 3], games, PlacePoints())
    assert [row.player for row in rows] == [2, 0, 1, 3]
    assert [row.place for row in rows] == [1, 2, 3, 4]
    assert not any(row.shared for row in rows)


def test_at_larger_tables_a_game_adds_the_average_of_the_opponents_points():
    games = [
        GameRecord((0, 1, 2), (1, 2, 3)),
        GameRecord((3, 4, 5, 6), (1, 1, 3, 4)),
    ]
    rows = by_player(standings(list(range(7)), games, PlacePoints()))
    assert rows[0].points == 2 and rows[3].points == rows[4].points == Fraction(5, 2)
    assert rows[0].opponents_points == HALF  # (1 + 0) / 2
    assert rows[3].opponents_points == Fraction(5, 2 * 3) + Fraction(1, 3)  # (5/2 + 1 + 0) / 3
    assert rows[6].opponents_points == 2  # (5/2 + 5/2 + 1) / 3


def test_a_withdrawn_player_stays_in_with_the_games_they_played():
    games = [GameRecord((0, 1), (1, 2)), GameRecord((1, 2), (2, 1))]
    rows = by_player(standings([0, 1, 2], games, PlacePoints(), withdrawn={0}))
    assert rows[0].withdrawn and rows[0].points == 1 and rows[0].games == 1
    assert rows[1].opponents_points == 2  # 0's point counts for 1, who met them


def test_unfinished_games_count_for_nothing_and_a_bye_gives_points_but_no_opponents():
    games = [GameRecord((0, 1)), GameRecord((2, 3), (1, 2))]
    rows = by_player(standings([0, 1, 2, 3, 4], games, PlacePoints(), byes={4: 1}))
    assert rows[0].points == 0 and rows[0].games == 0
    assert rows[4].points == 1 and rows[4].byes == 1 and rows[4].opponents_points == 0
    rows = by_player(standings([0, 1, 2, 3, 4], games, PlacePoints(), {4: 1}, bye_points=HALF))
    assert rows[4].points == HALF


def test_results_from_outside_the_tournament_and_broken_places_are_refused():
    with pytest.raises(FormatError):
        standings([0, 1], [GameRecord((0, 9), (1, 2))], PlacePoints())
    with pytest.raises(FormatError):
        GameRecord((0, 1), (1, 1, 3))
    with pytest.raises(FormatError):
        GameRecord((0, 0), (1, 2))
    with pytest.raises(FormatError):
        GameRecord((0, 1, 2), (1, 2, 2), (3, 4))


def test_the_crosstable_gives_each_pair_its_own_results():
    games = [
        GameRecord((0, 1, 2), (1, 2, 2)),
        GameRecord((0, 1), (2, 1)),
        GameRecord((1, 2)),
    ]
    cross = crosstable([1, 0, 2], games)
    assert cross.cell(0, 1) == (1, 0)
    assert cross.cell(1, 0) == (0, 1)
    assert cross.cell(1, 2) == (HALF, None)
    assert cross.cell(2, 0) == (0,)
    assert cross.total(1) == Fraction(3, 2) and cross.total(0) == 2
    assert cross.cell(0, 0) == ()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 7), min_size=2, max_size=5, unique=True),
            st.lists(st.integers(0, 2), min_size=5, max_size=5),
        ),
        max_size=12,
    )
)
def test_with_the_default_points_the_crosstable_adds_up_to_the_standings(tables):
    """One point for each player finished ahead of, a half for each tied with: the same as
    adding up the crosstable's pair results. And a recount from the games gives the same."""
    games = []
    for players, scores in tables:
        keys = scores[: len(players)]
        places = tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)
        games.append(GameRecord(tuple(players), places, tuple(keys)))
    rows = standings(list(range(8)), games, PlacePoints())
    cross = crosstable(list(range(8)), games)
    counted = dict.fromkeys(range(8), Fraction(0))
    for game in games:
        for player, gained in game_points(game, PlacePoints()).items():
            counted[player] += gained
    for row in rows:
        assert row.points == cross.total(row.player) == counted[row.player]
    assert [row.place for row in rows] == sorted(row.place for row in rows)
