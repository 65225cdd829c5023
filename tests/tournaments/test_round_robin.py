"""Round-robin sections: balanced sections by seeding; schedules in which every pair meets once
at 2-player tables and as evenly as can be at 3 to 5 (against brute force on small sections)."""

from collections import Counter
from itertools import combinations, product

import pytest

from games.tournaments.formats import FormatError, table_sizes
from games.tournaments.round_robin import (
    affine_plane,
    default_rounds,
    kirkman_fifteen,
    schedule_section,
    unevenness,
)
from games.tournaments.sections import split_sections

from .helpers import seatings


def check_schedule(schedule, players, table_size, rounds):
    """Each round seats every player once (but those sitting out at 2-player tables), at the
    sizes the field takes; at mixed sizes each plays as many games at the smaller tables as
    every other, give or take one."""
    assert len(schedule.rounds) == rounds
    sizes = table_sizes(len(players), table_size)
    small = Counter()
    for tables, out in zip(schedule.rounds, schedule.sitting_out, strict=True):
        seated = [p for table in tables for p in table] + list(out)
        assert sorted(seated) == sorted(players)
        assert sorted((len(t) for t in tables), reverse=True) == list(sizes)
        for table in tables:
            if len(table) == min(sizes) < max(sizes):
                small.update(table)
    if min(sizes) < max(sizes):
        counts = [small[p] for p in players]
        assert max(counts) - min(counts) <= 1


def test_sections_are_balanced_and_dealt_in_a_snake():
    sections = split_sections(list(range(23)), 12)
    assert [len(s) for s in sections] == [11, 12]
    assert sections[0][:4] == [0, 3, 4, 7]
    assert sections[1][:4] == [1, 2, 5, 6]
    sections = split_sections(list(range(40)), 13)
    assert [len(s) for s in sections] == [10, 10, 10, 10]
    assert sorted(p for s in sections for p in s) == list(range(40))
    with pytest.raises(FormatError):
        split_sections([1, 1, 2], 5)


@pytest.mark.parametrize("count", range(2, 17))
def test_at_two_player_tables_everyone_meets_everyone_once(count):
    players = [100 + p for p in range(count)]
    schedule = schedule_section(players, 2)
    check_schedule(schedule, players, 2, default_rounds(count, 2))
    assert schedule.distribution() == {1: count * (count - 1) // 2}
    out = Counter(p for resting in schedule.sitting_out for p in resting)
    assert all(out[p] == (1 if count % 2 else 0) for p in players)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_the_affine_planes_seat_every_pair_together_exactly_once(k):
    design = affine_plane(k)
    assert len(design) == k + 1
    pairs = Counter(pair for tables in design for t in tables for pair in combinations(t, 2))
    assert set(pairs.values()) == {1} and len(pairs) == k * k * (k * k - 1) // 2
    schedule = schedule_section(list(range(k * k)), k) if k > 2 else None
    if schedule is not None:
        assert schedule.distribution() == {1: len(pairs)}


def test_kirkman_s_fifteen_schoolgirls_meet_each_other_exactly_once():
    design = kirkman_fifteen()
    assert len(design) == 7
    for tables in design:
        assert sorted(p for t in tables for p in t) == list(range(15))
    schedule = schedule_section(list(range(15)), 3)
    assert schedule.distribution() == {1: 105} and schedule.even


def test_more_rounds_than_one_design_repeat_it_evenly():
    schedule = schedule_section(list(range(9)), 3, rounds=6)
    assert schedule.distribution() == {1: 18, 2: 18}
    check_schedule(schedule, list(range(9)), 3, 6)


@pytest.mark.parametrize(
    ("count", "size", "rounds"),
    [(5, 3, 2), (6, 3, 3), (7, 3, 3), (8, 4, 3), (7, 4, 2), (8, 5, 2), (7, 5, 2)],
)
def test_small_sections_are_as_even_as_the_best_schedule_there_is(count, size, rounds):
    """Against every schedule (the first round fixed: any other is the same up to names) whose
    smaller tables are shared out evenly, the search finds the least unevenness."""
    players = list(range(count))
    sizes = table_sizes(count, size)
    splits = list(seatings(players, sizes))

    def cost(rounds_tables):
        met = Counter(
            pair for tables in rounds_tables for t in tables for pair in combinations(sorted(t), 2)
        )
        small = Counter(
            p for tables in rounds_tables for t in tables if len(t) == min(sizes) for p in t
        )
        if (
            min(sizes) < max(sizes)
            and max(small[p] for p in players) - min(small[p] for p in players) > 1
        ):
            return None
        return sum(unevenness(met[pair]) for pair in combinations(players, 2))

    costs = (cost((splits[0], *rest)) for rest in product(splits, repeat=rounds - 1))
    best = min(c for c in costs if c is not None)
    schedule = schedule_section(players, size, rounds)
    check_schedule(schedule, players, size, rounds)
    assert cost(schedule.rounds) == best


@pytest.mark.parametrize(("count", "size"), [(7, 3), (10, 4), (11, 4), (13, 5), (12, 5), (9, 4)])
def test_every_schedule_seats_everyone_each_round_and_shares_out_the_smaller_tables(count, size):
    players = [10 * p + 7 for p in range(count)]
    schedule = schedule_section(players, size, seed=3)
    check_schedule(schedule, players, size, default_rounds(count, size))
    assert schedule == schedule_section(players, size, seed=3)
    assert schedule.most_meetings <= 2


def test_the_default_rounds_are_the_fewest_in_which_every_pair_can_meet():
    assert default_rounds(8, 2) == 7 and default_rounds(9, 2) == 9
    assert default_rounds(9, 3) == 4 and default_rounds(13, 5) == 3
    assert default_rounds(4, 5) == 1
    one_table = schedule_section([1, 2, 3, 4], 5)
    assert one_table.rounds == (((1, 2, 3, 4),),)
