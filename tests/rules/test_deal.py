import math
import random
from collections import Counter

import pytest

from games.rules import (
    Colour,
    RuleError,
    deal,
    drafts_per_player,
    make_board_colours,
    new_game,
    seat_order,
)


@pytest.mark.parametrize(
    ("players", "removed", "columns", "per_column", "drafts"),
    [(2, 10, 10, 5, 25), (3, 0, 12, 5, 20), (4, 0, 12, 5, 15), (5, 0, 10, 6, 12)],
)
def test_layout_by_player_count(players, removed, columns, per_column, drafts):
    d = deal(players, 1234)
    assert len(d.removed) == removed
    assert len(d.columns) == columns
    assert all(len(c) == per_column for c in d.columns)
    every = sorted(list(d.removed) + [t for c in d.columns for t in c])
    assert every == list(range(60))
    assert drafts_per_player(players) == drafts
    assert drafts * players == 60 - removed
    assert len(d.board_colours) == players


def test_same_seed_same_deal_other_seed_other_deal():
    assert deal(4, 99) == deal(4, 99)
    assert new_game(4, 99) == new_game(4, 99)
    assert deal(4, 99).columns != deal(4, 100).columns
    assert deal(2, 5).removed != deal(2, 6).removed


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_boards_have_each_colour_five_times_and_differ(players):
    for seed in range(30):
        boards = deal(players, seed).board_colours
        for b in boards:
            assert Counter(b) == {c: 5 for c in Colour}
        assert len(set(boards)) == players


def test_board_is_redrawn_when_equal_to_another():
    class Rigged(random.Random):
        """Shuffles to the same layout twice, then something else."""

        calls = 0

        def shuffle(self, x):
            Rigged.calls += 1
            x.sort()
            if Rigged.calls > 2:
                x.reverse()

    rng = Rigged()
    first = make_board_colours(rng, ())
    second = make_board_colours(rng, (first,))
    assert second != first
    assert Rigged.calls == 3


def test_board_colours_are_uniformly_shuffled_bag():
    # A rough check of uniformity: each colour lands on space 0 about 1/5 of the time.
    rng = random.Random(0)
    counts = Counter(make_board_colours(rng, ())[0] for _ in range(2000))
    assert all(300 < counts[c] < 500 for c in Colour)


@pytest.mark.parametrize("players", [1, 6, "4", True, None])
def test_bad_player_count(players):
    with pytest.raises(RuleError) as exc:
        deal(players, 1)
    assert exc.value.code == "bad_setup"
    assert exc.value.message == "A game needs 2, 3, 4 or 5 players."


@pytest.mark.parametrize("seed", ["1", 1.5, None, False])
def test_bad_seed(seed):
    with pytest.raises(RuleError, match=r"The seed must be a whole number\."):
        deal(4, seed)


def test_large_and_negative_seeds_work():
    assert deal(3, -7).players == 3
    assert deal(3, 2**80) == deal(3, 2**80)


def test_new_game_start():
    s = new_game(3, 8)
    assert s.phase == "drafting"
    assert s.current_player() == 0
    assert s.draw_column() == 11
    assert s.draw_tiles() == s.columns[11]
    assert s.forced_action() is None
    assert s.trays == ((), (), ())
    assert all(b.tile_count == 0 for b in s.boards)
    assert new_game(3, 8, first_seat=2).current_player() == 2
    with pytest.raises(RuleError):
        new_game(3, 8, first_seat=3)


# --- the seat order --------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_seat_order_is_a_draw_of_everyone_fixed_by_the_seed(players):
    orders = {seat_order(players, seed) for seed in range(400)}
    assert all(sorted(order) == list(range(players)) for order in orders)
    assert seat_order(players, 99) == seat_order(players, 99)
    # Every order comes up (all of the 120 of five players but a few, in 400 deals).
    assert len(orders) > (math.factorial(players) - 1 if players < 5 else 100)


def test_every_seat_order_is_about_as_likely():
    counts = Counter(seat_order(3, seed) for seed in range(6000))
    assert len(counts) == 6
    assert all(900 <= count <= 1100 for count in counts.values()), counts


def test_the_seat_order_tells_nothing_about_the_deal():
    """Its own stream of the seed: who drafts first is independent of the tiles dealt (drawn
    from the deal's stream, the first player was fixed by the draw column's bottom tile)."""
    seeds = range(3000)
    # Who drafts first (0 or 1, in join order) against the bottom tile of the first draw
    # column, in six groups of ten tile ids: a chi-square test of independence, 5 degrees of
    # freedom. Above 20.5 would happen by chance once in a thousand deals of seeds.
    table = Counter((seat_order(2, seed)[0], deal(2, seed).columns[-1][-1] // 10) for seed in seeds)
    total = sum(table.values())
    first = Counter()
    group = Counter()
    for (who, tiles), count in table.items():
        first[who] += count
        group[tiles] += count
    chi_square = sum(
        (table[(who, tiles)] - first[who] * group[tiles] / total) ** 2
        / (first[who] * group[tiles] / total)
        for who in first
        for tiles in group
    )
    assert chi_square < 20.5
