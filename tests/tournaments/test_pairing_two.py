"""The Swiss pairing at 2-player tables: everyone once, the fewest repeats, score groups kept,
the bye to the lowest-ranked who has not had one; the reported bound held against brute force."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments.matching import BLOCK, FULL_FIELD, bye_candidates, pairs_repeat_bound
from games.tournaments.meetings import Meetings
from games.tournaments.pairing import PairingError, SwissPlayer, pair_round, standing_order

from .helpers import history, pairings, score_groups

QUICK = settings(max_examples=40, deadline=None)


def field(count, points=None):
    return [SwissPlayer(p, p, Fraction((points or {}).get(p, 0))) for p in range(count)]


def check_round(players, meetings, result):
    """What every round must be: each player still in seated once (or the bye), no one else."""
    active = sorted(p.id for p in players if p.paired)
    seated = list(result.seated) + ([result.bye] if result.bye is not None else [])
    assert sorted(seated) == active
    assert all(len(table) == 2 for table in result.tables)
    assert (result.bye is not None) == (len(active) % 2 == 1)
    assert result.repeats == meetings.repeats(result.tables)
    assert 0 <= result.repeat_bound <= result.repeats
    rank = {p.id: i for i, p in enumerate(standing_order([p for p in players if p.paired]))}
    assert all(rank[a] < rank[b] for a, b in result.tables)


def test_the_first_round_folds_the_field_top_half_against_bottom_half():
    result = pair_round(field(8), Meetings(), 2)
    assert result.tables == ((0, 4), (1, 5), (2, 6), (3, 7))
    assert result.bye is None and result.repeats == 0


def test_an_odd_first_round_gives_the_bye_to_the_lowest_seed():
    result = pair_round(field(7), Meetings(), 2)
    assert result.bye == 6
    assert result.tables == ((0, 3), (1, 4), (2, 5))


def test_winners_meet_winners_and_nobody_meets_again():
    meetings = Meetings([(0, 4), (1, 5), (2, 6), (3, 7)])
    players = field(8, {0: 1, 1: 1, 2: 1, 3: 1})
    result = pair_round(players, meetings, 2)
    assert result.tables == ((0, 2), (1, 3), (4, 6), (5, 7))
    assert result.repeats == 0


def test_a_lone_leader_floats_down_to_the_best_of_the_next_group():
    players = field(6, {0: 2, 1: 1, 2: 1, 3: 1})
    result = pair_round(players, Meetings(), 2)
    assert result.tables[0] == (0, 1)
    assert result.tables[1:] == ((2, 3), (4, 5))


def test_two_who_met_are_kept_apart_even_at_the_cost_of_a_float():
    players = field(4, {0: 1, 1: 1})
    result = pair_round(players, Meetings([(0, 1)]), 2)
    assert result.repeats == 0
    assert set(result.tables) == {(0, 2), (1, 3)}


def test_no_second_bye_while_someone_has_had_none():
    players = [SwissPlayer(p, p, Fraction(0), byes=1 if p == 4 else 0) for p in range(5)]
    assert pair_round(players, Meetings(), 2).bye == 3
    everyone = [SwissPlayer(p, p, Fraction(0), byes=1) for p in range(5)]
    assert pair_round(everyone, Meetings(), 2).bye == 4
    assert bye_candidates([0, 1, 2], {0: 2, 1: 1, 2: 2}) == [1]


def test_withdrawn_and_twice_abandoning_players_are_not_paired():
    players = field(6)
    players[1] = SwissPlayer(1, 1, withdrawn=True)
    players[2] = SwissPlayer(2, 2, abandons=2)
    players[3] = SwissPlayer(3, 3, abandons=1)
    result = pair_round(players, Meetings(), 2)
    assert sorted(result.seated) == [0, 3, 4, 5]


def test_fewer_than_two_players_cannot_be_paired():
    with pytest.raises(PairingError):
        pair_round(field(1), Meetings(), 2)
    with pytest.raises(PairingError):
        pair_round([SwissPlayer(0, 0), SwissPlayer(0, 1)], Meetings(), 2)


@QUICK
@given(
    seed=st.integers(0, 2**32),
    count=st.integers(2, 10),
    rounds=st.integers(0, 7),
    out=st.integers(0, 2),
)
def test_small_fields_are_paired_as_well_as_trying_every_pairing(seed, count, rounds, out):
    """Fewest repeats first, then the smallest score gaps (the sum of squared differences of
    score group), against every legal pairing; the bound is the fewest repeats of any pairing."""
    players, meetings = history(seed, count, rounds, withdrawn=min(out, count - 2))
    result = pair_round(players, meetings, 2)
    check_round(players, meetings, result)
    active = [p for p in players if p.paired]
    ids = [p.id for p in active]
    group, levels = score_groups(active)
    allowed = set(bye_candidates(ids, {p.id: p.byes for p in active}))

    def cost(pairs, bye):
        gaps = sum((group[a] - group[b]) ** 2 for a, b in pairs)
        if bye is not None:
            gaps += (levels - group[bye]) ** 2
        return meetings.repeats(pairs), gaps

    best = min(cost(pairs, bye) for pairs, bye in pairings(ids, allowed))
    assert cost(result.tables, result.bye) == best
    fewest = min(meetings.repeats(pairs) for pairs, _ in pairings(ids, set(ids)))
    assert result.repeat_bound == fewest


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), count=st.integers(11, 50), rounds=st.integers(0, 40))
def test_mid_fields_reach_the_exact_bound_whenever_the_bye_does_not_stand_in_the_way(
    seed, count, rounds
):
    """Up to FULL_FIELD players the bound is the exact fewest repeats of any pairing, and the
    matching puts repeats first: so with an even field (no bye to restrict) they agree."""
    players, meetings = history(seed, count, rounds)
    result = pair_round(players, meetings, 2)
    check_round(players, meetings, result)
    if count % 2 == 0:
        assert result.repeats == result.repeat_bound


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), count=st.integers(FULL_FIELD + 1, 160), rounds=st.integers(0, 8))
def test_large_fields_are_matched_in_blocks_and_the_bye_goes_to_the_lowest_ranked(
    seed, count, rounds
):
    players, meetings = history(seed, count, rounds)
    result = pair_round(players, meetings, 2)
    check_round(players, meetings, result)
    if result.bye is not None:
        ranked = [p.id for p in standing_order(players)]
        assert result.bye == bye_candidates(ranked, {p.id: p.byes for p in players})[-1]


def test_a_large_field_pairs_every_player_once_without_repeats_across_blocks():
    """A player of the first block of the pairing order has met everyone else in it: the block
    cannot be paired alone without a repeat, so it is merged with the next and matched again."""
    count = 300
    players = field(count)
    order = [p for pair in zip(range(150), range(150, 300), strict=True) for p in pair]
    first_block = order[:BLOCK]
    met_them_all = first_block[5]
    meetings = Meetings([(met_them_all, other) for other in first_block if other != met_them_all])
    result = pair_round(players, meetings, 2)
    check_round(players, meetings, result)
    assert result.repeats == 0 == result.repeat_bound
    partner = next(
        b if a == met_them_all else a for a, b in result.tables if met_them_all in (a, b)
    )
    assert partner not in first_block


def test_a_large_field_s_bound_counts_those_who_met_everyone():
    """Beyond FULL_FIELD, and when Dirac's condition fails, the bound is half the players who
    have met everyone still here (each must meet someone again): here 3 of them, so 2."""
    count = FULL_FIELD + 20
    tables = [(a, b) for a in range(3) for b in range(count) if a < b]
    tables += [(p, q) for p in range(3, count) for q in range(p + 1, count) if q - p <= 30]
    meetings = Meetings(tables)
    order = list(range(count))
    assert pairs_repeat_bound(order, meetings) == 2
    result = pair_round(field(count), meetings, 2)
    check_round(field(count), meetings, result)
    assert result.repeats >= 2


def test_the_bound_is_dirac_s_zero_when_everyone_has_half_the_field_still_to_meet():
    meetings = Meetings([(p, q) for p in range(20) for q in range(p + 1, 20) if q - p <= 4])
    assert pairs_repeat_bound(list(range(20)), meetings) == 0
    # Two who met, alone: their one pairing is a repeat.
    assert pairs_repeat_bound([0, 1], meetings) == 1
