"""The organiser's settings: points per place (shared places share), table sizes, who is still
paired, seeding."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments.formats import (
    FormatError,
    PlacePoints,
    RoundRobinFormat,
    SwissFormat,
    check_places,
    still_paired,
    table_sizes,
)
from games.tournaments.seeding import Entrant, seeding_order

HALF = Fraction(1, 2)


def test_default_points_are_one_a_player_finished_ahead_of():
    points = PlacePoints()
    assert points.row(2) == (1, 0)
    assert points.row(3) == (2, 1, 0)
    assert points.row(4) == (3, 2, 1, 0)
    assert points.row(5) == (4, 3, 2, 1, 0)
    assert points.win == 1


def test_shared_places_share_the_points_of_the_places_they_cover():
    points = PlacePoints()
    assert points.points((1, 1)) == (HALF, HALF)
    assert points.points((1, 2, 2, 4)) == (3, HALF * 3, HALF * 3, 0)
    assert points.points((1, 1, 1)) == (1, 1, 1)
    custom = PlacePoints({4: (6, 4, 2, 0)})
    assert custom.points((2, 1, 2, 4)) == (3, 6, 3, 0)
    assert custom.row(2) == (1, 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=5))
def test_a_table_hands_out_the_points_of_its_places_whatever_the_ties(scores):
    places = tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)
    for row in (None, (10, 7, 5, 2, 1)):
        points = PlacePoints() if row is None else PlacePoints({5: row})
        gained = points.points(places)
        assert sum(gained) == sum(points.row(len(places)))
        for a, b in zip(places, gained, strict=True):
            for c, d in zip(places, gained, strict=True):
                assert (a < c) <= (b >= d)
                assert (a == c) <= (b == d)


def test_impossible_points_and_places_are_refused():
    with pytest.raises(FormatError):
        PlacePoints({3: (0, 1, 2)})
    with pytest.raises(FormatError):
        PlacePoints({3: (2, 1)})
    with pytest.raises(FormatError):
        PlacePoints({3: (2, 1, -1)})
    with pytest.raises(FormatError):
        PlacePoints({6: (5, 4, 3, 2, 1, 0)})
    for places in [(1, 1, 2), (2, 3), (1, 3), (0, 1), (1,), (1, 2, 3, 4, 5, 6)]:
        with pytest.raises(FormatError):
            check_places(places)


@pytest.mark.parametrize("size", [3, 4, 5])
def test_tables_are_of_the_size_or_one_fewer_but_for_a_few_small_fields(size):
    uneven = set()
    for players in range(2, 201):
        sizes = table_sizes(players, size)
        assert sum(sizes) == players
        assert len(sizes) == -(-players // size)
        assert max(sizes) <= size and min(sizes) >= 2
        assert max(sizes) - min(sizes) <= 1 and list(sizes) == sorted(sizes, reverse=True)
        if min(sizes) < size - 1:
            uneven.add(players)
    assert uneven == {3: set(), 4: {2, 5}, 5: {2, 3, 6, 7, 11}}[size]
    assert table_sizes(13, 5) == (5, 4, 4)


def test_two_player_tables_leave_the_odd_player_to_the_bye_and_one_player_is_no_table():
    assert table_sizes(7, 2) == (2, 2, 2)
    with pytest.raises(FormatError):
        table_sizes(1, 3)
    with pytest.raises(FormatError):
        table_sizes(8, 6)


def test_a_player_who_withdraws_or_abandons_twice_is_paired_no_more():
    assert still_paired(False, 0) and still_paired(False, 1)
    assert not still_paired(False, 2) and not still_paired(True, 0)


def test_formats_check_their_settings_and_a_bye_is_worth_a_win_by_default():
    assert SwissFormat(rounds=5, table_size=2).bye_points == 1
    assert SwissFormat(5, 2, PlacePoints({2: (2, 0)})).bye_points == 2
    assert SwissFormat(5, 2, bye_points=HALF).bye_points == HALF
    with pytest.raises(FormatError):
        SwissFormat(rounds=0, table_size=2)
    with pytest.raises(FormatError):
        SwissFormat(rounds=3, table_size=6)
    with pytest.raises(FormatError):
        RoundRobinFormat(section_size=3, table_size=4)
    assert RoundRobinFormat(section_size=13, table_size=5).rounds is None


def test_seeding_by_rating_puts_the_unrated_last_and_breaks_ties_by_registration():
    entrants = [Entrant(5, 1500.0), Entrant(2, None), Entrant(3, 1700.0), Entrant(1, 1500.0)]
    assert seeding_order(entrants, by_rating=True, seed=0) == [3, 1, 5, 2]


def test_seeding_without_ratings_is_a_draw_repeatable_from_the_tournament_s_seed():
    entrants = [Entrant(p) for p in range(20)]
    drawn = seeding_order(entrants, by_rating=False, seed=42)
    assert sorted(drawn) == list(range(20)) and drawn != list(range(20))
    assert seeding_order(list(reversed(entrants)), by_rating=False, seed=42) == drawn
    assert seeding_order(entrants, by_rating=False, seed=43) != drawn
