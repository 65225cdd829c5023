"""The marginal cost of a watcher, from a series of load runs against the same servers that differ
in the number of watchers (`python -m benchmarks load --watcher-series 0,20,50,200`).

Each step's CPU seconds (of one kind of process, or of all) are taken to be

    cpu = a * moves + c * watcher_moves

where `moves` is the accepted moves of all the step's games and `watcher_moves` the moves of the
watched games counted once per watcher (a move of a game with 50 watchers counts 50). `a` is the
CPU of a move (with the idle cost of the servers over the step's length folded in: every step
lasts as long), `c` what each watcher adds to a move. Both come from a least-squares fit over the
steps, with the standard error of `c` when there are more steps than the fit's two unknowns: on a
shared machine a figure is only worth as much as the steps agree.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    moves: int
    watcher_moves: int
    cpu: float  # seconds


@dataclass(frozen=True)
class Fit:
    per_move: float  # a, seconds of CPU per move
    per_watcher: float  # c, seconds of CPU per watcher per move of its game
    error: float | None  # the standard error of c (None with two steps: an exact fit)


def fit(steps: list[Step]) -> Fit | None:
    """The least-squares a and c of `steps`; None when they cannot tell the two apart (fewer
    than two steps, or the same share of watched moves in all of them)."""
    if len(steps) < 2:
        return None
    xx = sum(step.moves * step.moves for step in steps)
    xw = sum(step.moves * step.watcher_moves for step in steps)
    ww = sum(step.watcher_moves * step.watcher_moves for step in steps)
    xy = sum(step.moves * step.cpu for step in steps)
    wy = sum(step.watcher_moves * step.cpu for step in steps)
    determinant = xx * ww - xw * xw
    if determinant <= 1e-9 * max(xx * ww, 1):
        return None
    a = (ww * xy - xw * wy) / determinant
    c = (xx * wy - xw * xy) / determinant
    error = None
    if len(steps) > 2:
        residuals = sum((step.cpu - a * step.moves - c * step.watcher_moves) ** 2 for step in steps)
        variance = residuals / (len(steps) - 2)
        error = math.sqrt(variance * xx / determinant)
    return Fit(a, c, error)
