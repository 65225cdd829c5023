"""The Swiss pairing at tables of 3 to 5: everyone seated once at tables of the right sizes,
grouped by standing, the fewest repeats (against brute force on small fields), a real bound."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments.formats import table_sizes
from games.tournaments.grouping import _swap_gain, tables_repeat_bound
from games.tournaments.meetings import Meetings
from games.tournaments.pairing import SwissPlayer, pair_round, standing_order

from .helpers import history, seatings

QUICK = settings(max_examples=30, deadline=None)


def check_round(players, meetings, result, size):
    active = [p for p in players if p.paired]
    assert sorted(result.seated) == sorted(p.id for p in active)
    assert result.bye is None
    assert tuple(len(t) for t in result.tables) == table_sizes(len(active), size)
    rank = {p.id: i for i, p in enumerate(standing_order(active))}
    for table in result.tables:
        assert list(table) == sorted(table, key=rank.__getitem__)
    assert result.repeats == meetings.repeats(result.tables)
    assert 0 <= result.repeat_bound <= result.repeats


def test_the_first_round_slides_the_seeds_across_the_tables():
    players = [SwissPlayer(p, p) for p in range(13)]
    result = pair_round(players, Meetings(), 5)
    assert result.tables == ((0, 3, 6, 9, 12), (1, 4, 7, 10), (2, 5, 8, 11))


def test_later_rounds_group_by_standing():
    points = [4, 4, 3, 3, 3, 2, 2, 1, 1, 0]
    players = [SwissPlayer(p, p, Fraction(points[p])) for p in range(10)]
    result = pair_round(players, Meetings(), 5)
    assert result.tables == ((0, 1, 2, 3, 4), (5, 6, 7, 8, 9))


def test_a_repeat_is_swapped_out_to_the_next_table():
    points = [4, 4, 3, 3, 3, 2, 2, 1, 1, 0]
    players = [SwissPlayer(p, p, Fraction(points[p])) for p in range(10)]
    result = pair_round(players, Meetings([(0, 1)]), 5)
    assert result.repeats == 0
    assert not any({0, 1} <= set(table) for table in result.tables)


def test_a_small_field_of_thirteen_at_fives_takes_the_fewest_repeats_there_are():
    """After a first round of 5 + 4 + 4, a table of 5 must hold two pairs from one old table
    and each table of 4 one: no seating of round two has fewer than 4 repeats."""
    players = [SwissPlayer(p, p) for p in range(13)]
    first = pair_round(players, Meetings(), 5)
    meetings = Meetings(first.tables)
    second = pair_round(players, meetings, 5)
    assert second.repeats == 4 == second.repeat_bound


@QUICK
@given(
    seed=st.integers(0, 2**32),
    count=st.integers(3, 10),
    size=st.integers(3, 5),
    rounds=st.integers(0, 5),
    out=st.integers(0, 1),
)
def test_small_fields_take_the_fewest_repeats_of_any_seating(seed, count, size, rounds, out):
    players, meetings = history(seed, count, rounds, table_size=size, withdrawn=out)
    result = pair_round(players, meetings, size)
    check_round(players, meetings, result, size)
    active = [p.id for p in players if p.paired]
    sizes = table_sizes(len(active), size)
    fewest = min(meetings.repeats(seating) for seating in seatings(active, sizes))
    assert result.repeats == fewest
    assert result.repeat_bound <= fewest


@QUICK
@given(
    seed=st.integers(0, 2**32),
    count=st.integers(31, 70),
    size=st.integers(3, 5),
    rounds=st.integers(0, 14),
)
def test_larger_fields_end_at_the_bound_or_where_no_swap_takes_out_a_repeat(
    seed, count, size, rounds
):
    players, meetings = history(seed, count, rounds, table_size=size)
    result = pair_round(players, meetings, size)
    check_round(players, meetings, result, size)
    if result.repeats > result.repeat_bound:
        tables = [list(t) for t in result.tables]
        home = {p: i for i, t in enumerate(tables) for p in t}
        for i, ti in enumerate(tables):
            for j, tj in enumerate(tables):
                if i < j:
                    assert all(
                        _swap_gain(tables, home, meetings, i, u, j, v)[0] >= 0
                        for u in ti for v in tj
                    )  # fmt: skip


@QUICK
@given(seed=st.integers(0, 2**32), count=st.integers(3, 9), size=st.integers(3, 5))
def test_the_simple_bound_never_exceeds_the_fewest_repeats(seed, count, size):
    _, meetings = history(seed, count, 6, table_size=size)
    order = list(range(count))
    sizes = table_sizes(count, size)
    fewest = min(meetings.repeats(seating) for seating in seatings(order, sizes))
    assert tables_repeat_bound(order, sizes, meetings) <= fewest


def test_the_simple_bound_counts_players_short_of_new_table_mates():
    # 0 has met everyone: at a table of at least 3 they meet 2 again; 1 and 2 have one new
    # player left each (each other, and 0... no: 0 they met): they each meet one again.
    meetings = Meetings([(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 3), (1, 4), (1, 5)])
    assert tables_repeat_bound(list(range(6)), (3, 3), meetings) == 2
