"""The watcher series' fit (benchmarks/loadtest/series.py): the CPU a watcher adds to a move,
told apart from what a move costs, from steps of a load run that differ in their watchers."""

import pytest

from benchmarks.loadtest.series import Step, fit


def steps_costing(per_move: float, per_watcher: float, runs) -> list[Step]:
    return [
        Step(moves, watched, per_move * moves + per_watcher * watched) for moves, watched in runs
    ]


def test_the_fit_finds_what_a_move_and_a_watcher_cost():
    # 0, 20, 50 and 200 watchers of one game among 21: the moves vary from step to step.
    runs = [(800, 0), (760, 20 * 40), (790, 50 * 38), (700, 200 * 35)]
    found = fit(steps_costing(0.040, 0.0015, runs))

    assert found.per_move == pytest.approx(0.040)
    assert found.per_watcher == pytest.approx(0.0015)
    assert found.error == pytest.approx(0, abs=1e-9)  # four steps on one line


def test_two_steps_fit_exactly_and_noisy_steps_carry_their_error():
    exact = fit(steps_costing(0.030, 0.0002, [(500, 0), (520, 50 * 30)]))
    assert exact.per_watcher == pytest.approx(0.0002) and exact.error is None

    # A shared machine: each step's CPU off by a few tenths of a second.
    runs = [(500, 0), (520, 20 * 26), (480, 50 * 24), (510, 200 * 25)]
    steps = steps_costing(0.030, 0.0005, runs)
    noisy = [
        Step(s.moves, s.watcher_moves, s.cpu + off)
        for s, off in zip(steps, [0.3, -0.4, 0.2, 0.1], strict=True)
    ]
    found = fit(noisy)
    assert found.error > 0
    assert abs(found.per_watcher - 0.0005) < 3 * found.error


def test_steps_that_cannot_tell_a_watcher_from_a_move_give_no_figure():
    assert fit([Step(500, 0, 15.0)]) is None
    assert fit([Step(500, 0, 15.0), Step(600, 0, 18.0)]) is None  # no watchers at all
    # Watched moves in the same share of all moves: watchers and moves go up together.
    assert fit([Step(500, 1000, 15.0), Step(1000, 2000, 30.0)]) is None
