from games.rules import places


def test_higher_score_first():
    assert places([(-4, 2), (10, 3), (2, 0)]) == [3, 1, 2]


def test_equal_scores_more_chip_tiles_first():
    assert places([(5, 2), (5, 4), (5, 3)]) == [3, 1, 2]


def test_still_equal_is_a_shared_place_and_the_next_place_is_skipped():
    assert places([(5, 2), (5, 2), (1, 0)]) == [1, 1, 3]
    assert places([(0, 0), (7, 1), (0, 0), (0, 0)]) == [2, 1, 2, 2]
    assert places([(3, 3)] * 5) == [1] * 5


def test_score_beats_chip_tiles():
    assert places([(6, 1), (5, 9)]) == [1, 2]
