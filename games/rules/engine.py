"""The engine: a search over the drafts to come, for the expert computer player and the analysis.

After the deal Microchip is a game of perfect information: the pool is face up, the order of
its columns is fixed and every board is visible. What a seat ends with is its tiles; its final
score is the best chip those tiles make on its board, minus 2 for each tile left out
(solver.py). Every seat drafts the same number of tiles, so the difference between two seats'
final scores is the difference of their chips' *gains* (the sum of value + 2 over the chip):
drafting is a game about which tiles end where, and arranging can wait for the end.

The engine plays that game on a small model of the position (`Position`: the pool, whose draft
is next, what each seat holds), in two phases (docs/engine.md has the measurements behind them):

1. **Monte Carlo tree search.** A node is a position where a seat chooses a tile of the draw
   column; tiles of one kind and colour are one choice (they are worth the same to everyone);
   a column's last tile, the forced take, is no choice and no node. Selection by UCB1
   (`exploration` x sqrt(log(parent visits) / visits), rewards in points); a node's choices are
   tried best first by the playout policy's judgement. A playout finishes the draft: each seat
   takes the tile that raises the *bound* of its chip most (`ChipBound`, the solver's per-colour
   bound at the empty board: a few dictionary look-ups), or with probability `noise` any tile of
   the draw column, drawn from the search's own seeded generator. At the end each seat's tiles
   are judged by the same bound and each seat's reward is its gain minus `rivalry` times the
   best gain of the others (1: its margin over the best other seat). Each seat chooses for its
   own reward (max^n; with two players a zero-sum game).
2. **Calibration.** The bound is cheap but optimistic, the more so the fewer tiles a seat ends
   with (on average 3 above the proved optimum with 25 tiles, 6 with 20, 13 with 15), and it
   flatters some tile sets more than others (it does not know that a chip must close: crosses
   and tees need neighbours). So the most visited choices are checked against the truth: from
   the position after each, `samples` playouts (the same random draws for every choice, so that
   the choices are compared on the same futures) end in tile sets that the solver scores
   exactly, within `solver_nodes` search nodes. A choice's value is its search margin less the
   mean amount by which the bound overrated the seat's own final tiles (with two players, plus
   the amount it overrated the opponent's). The best value is the engine's choice. A budget
   without samples skips this phase (the expert calibrates only with more than two players:
   with 25 tiles each the bound is close enough, bots.py).

Budgets are counted in work (iterations, samples, solver nodes), never in time, so a search
depends only on its position, its budget and its seed, on any machine. A time cap exists only
as a safety net (`Budget.time_cap`, seconds of CPU); a search that hits it says so (`capped`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from .potential import TYPE_OF, VALUE_OF_TYPE, Potential, exact_gain, tile_count
from .solver import packed_tiles
from .state import DRAFTING, GameState

# --- the position -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """What the drafts to come depend on: the pool, the seat whose draft is next, and the tiles
    each seat holds (packed).

    `columns` are the pool's columns left to right as tile ids (the draw column is the rightmost
    that is not empty); `colours` each seat's board."""

    players: int
    seat: int
    columns: tuple[tuple[int, ...], ...]
    supplies: tuple[int, ...]
    colours: tuple[tuple, ...]

    @classmethod
    def of(cls, state: GameState) -> Position:
        """The position of a game in its drafting phase, before the current seat's draft (a
        pending draft is counted as not made: its tile is back in the draw column)."""
        if state.phase != DRAFTING or state.current is None:
            raise ValueError("the engine searches only while drafting")
        columns = [list(column) for column in state.columns]
        owned = [[*state.trays[s], *state.boards[s].tiles()] for s in range(state.players)]
        pending = state.pending
        if pending is not None:
            owned[pending.seat].remove(pending.tile_id)
            columns[pending.column].insert(pending.index, pending.tile_id)
        return cls(
            players=state.players,
            seat=state.current,
            columns=tuple(tuple(column) for column in columns),
            supplies=tuple(packed_tiles(tiles) for tiles in owned),
            colours=tuple(board.colours for board in state.boards),
        )

    def draw_tiles(self) -> tuple[int, ...]:
        for column in reversed(self.columns):
            if column:
                return column
        return ()

    def choices(self) -> tuple[int, ...]:
        """The tiles the seat may choose, one per type, topmost first (none when the draw
        column holds one tile, a forced take, or the pool is empty)."""
        column = self.draw_tiles()
        if len(column) < 2:
            return ()
        seen: set[int] = set()
        found = []
        for tile in column:
            if TYPE_OF[tile] not in seen:
                seen.add(TYPE_OF[tile])
                found.append(tile)
        return tuple(found)

    def after(self, tile: int) -> Position:
        """The position after the seat takes `tile` from the draw column, and after the forced
        takes that follow it."""
        columns = list(self.columns)
        index = max((i for i, column in enumerate(columns) if column), default=-1)
        if index < 0 or tile not in columns[index]:
            raise ValueError("that tile is not in the draw column")
        supplies = list(self.supplies)
        seat = self.seat
        while True:
            column = list(columns[index])
            column.remove(tile)
            columns[index] = tuple(column)
            supplies[seat] += 1 << (3 * TYPE_OF[tile])
            seat = (seat + 1) % self.players
            index = max((i for i, column in enumerate(columns) if column), default=-1)
            if index < 0 or len(columns[index]) != 1:
                break
            tile = columns[index][0]
        return replace(self, seat=seat, columns=tuple(columns), supplies=tuple(supplies))

    def is_over(self) -> bool:
        return not any(self.columns)

    def final_counts(self) -> tuple[int, ...]:
        """How many tiles each seat ends with: what it holds plus its drafts still to come."""
        counts = [tile_count(supply) for supply in self.supplies]
        seat = self.seat
        for _ in range(sum(len(column) for column in self.columns)):
            counts[seat] += 1
            seat = (seat + 1) % self.players
        return tuple(counts)

    def key(self) -> str:
        """A text that names the position (the seed of its search: the same position, the
        same search)."""
        return f"{self.seat}|{self.columns}|{self.supplies}"


# --- budgets and answers ----------------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """How much a search may do.

    `iterations`: playouts of the tree search; `calibrate`: how many of the most visited choices
    are checked against the solver, with `samples` playouts each, each final tile set solved
    within `solver_nodes` search nodes; `time_cap`: seconds of CPU that a search should never
    reach, a safety net (None: none)."""

    iterations: int = 2000
    samples: int = 2
    calibrate: int = 3
    solver_nodes: int | None = 10_000
    time_cap: float | None = 10.0

    def scaled(self, factor: float) -> Budget:
        """The same budget with `factor` times the iterations (at least 50)."""
        return replace(self, iterations=max(50, int(self.iterations * factor)))


@dataclass
class Choice:
    """One choice of the seat to draft after a search: the tile (the topmost of its type), how
    many iterations went through it, the means of its playouts for the seat (its margin over
    the best other seat, its chip's gain bound), the calibration (`gap`: how much the bound
    overrated the seat's final tiles; `opponent_gap`: its opponent's, with two players, else 0;
    None if not calibrated), `value` (the margin, calibrated) and `score` (the expected final
    score: the calibrated gain less 2 for every tile the seat will own)."""

    tile: int
    visits: int
    margin: float
    gain: float
    gap: float | None
    opponent_gap: float | None
    value: float
    score: float

    def to_json(self) -> dict:
        return {
            "tile": self.tile,
            "visits": self.visits,
            "margin": round(self.margin, 2),
            "gain": round(self.gain, 2),
            "gap": None if self.gap is None else round(self.gap, 2),
            "opponent_gap": None if self.opponent_gap is None else round(self.opponent_gap, 2),
            "value": round(self.value, 2),
            "score": round(self.score, 2),
        }


@dataclass
class SearchResult:
    """A search's answer: its choices best first (the calibrated ones by value, then the others
    by visits), the iterations made, the expected final score of every seat from the position
    (by the search's playouts, not calibrated), and whether the time cap stopped it."""

    seat: int
    choices: list[Choice]
    iterations: int
    expected_scores: list[float]
    capped: bool = False
    seconds: float = field(default=0.0, compare=False)

    @property
    def best(self) -> Choice:
        return self.choices[0]

    def of(self, tile: int) -> Choice | None:
        """The choice that stands for `tile` (a tile of the same type), if it was searched."""
        kind_colour = TYPE_OF[tile]
        return next((c for c in self.choices if TYPE_OF[c.tile] == kind_colour), None)


# --- the search -------------------------------------------------------------------------------


class _Node:
    __slots__ = ("children", "gain", "margin", "seat", "untried", "visits")

    def __init__(self, seat: int, untried: list[int]) -> None:
        self.seat = seat  # the seat that chooses here
        self.untried = untried  # types not expanded yet; the last is tried first
        self.children: dict[int, _Node] = {}
        self.visits = 0
        # Sums over the playouts through this node, for the seat that chose it (its parent's).
        self.margin = 0.0
        self.gain = 0.0


class Search:
    """The search from one position (see the module docstring).

    `noise`: the chance that a playout's draft is any tile of the column rather than the best
    by the bound; `exploration`: the UCB1 constant, in points; `rivalry`: the weight of the best
    other seat's gain in a seat's reward.
    """

    def __init__(
        self,
        position: Position,
        *,
        seed: int = 0,
        noise: float = 0.25,
        exploration: float = 6.0,
        rivalry: float = 1.0,
        potentials: Sequence[Potential] | None = None,
        stream: str | None = None,
    ) -> None:
        self.position = position
        self.players = position.players
        self.seed = seed
        # The playouts' random numbers: by default named by the position; `evaluate` gives the
        # searches after each choice the same stream, so that they meet the same chances.
        self.rng = random.Random(f"engine {seed} {stream or position.key()}")
        self.noise = noise
        self.exploration = exploration
        self.rivalry = rivalry
        self.potentials = list(potentials or [Potential(c) for c in position.colours])
        self.final_counts = position.final_counts()
        self._columns = [[TYPE_OF[t] for t in column] for column in position.columns]
        self.root = self._node(position.seat, self._columns, list(position.supplies))
        self.iterations = 0
        self.root_margins = [0.0] * self.players
        self.root_gains = [0.0] * self.players

    # --- the model's moves, on mutable copies ---------------------------------------------

    @staticmethod
    def _draw(columns: list[list[int]]) -> int:
        """The index of the draw column (-1 when the pool is empty)."""
        index = len(columns) - 1
        while index >= 0 and not columns[index]:
            index -= 1
        return index

    def _take(
        self, columns: list[list[int]], supplies: list[int], seat: int, kind_colour: int
    ) -> int:
        """Seat takes a tile of this type from the draw column; then the forced takes follow.
        Return the seat whose draft is next."""
        columns[self._draw(columns)].remove(kind_colour)
        supplies[seat] += 1 << (3 * kind_colour)
        players = self.players
        seat = (seat + 1) % players
        while True:
            index = self._draw(columns)
            if index < 0 or len(columns[index]) != 1:
                return seat
            supplies[seat] += 1 << (3 * columns[index].pop())
            seat = (seat + 1) % players

    def _node(self, seat: int, columns: list[list[int]], supplies: list[int]) -> _Node:
        index = self._draw(columns)
        if index < 0:
            return _Node(seat, [])
        potential = self.potentials[seat]
        supply = supplies[seat]
        kinds = sorted(set(columns[index]))
        kinds.sort(key=lambda k: (potential.delta(supply, k), VALUE_OF_TYPE[k]))
        return _Node(seat, kinds)

    def _playout(
        self, columns: list[list[int]], supplies: list[int], seat: int, rng: random.Random
    ) -> None:
        noise = self.noise
        potentials = self.potentials
        players = self.players
        index = self._draw(columns)
        while index >= 0:
            column = columns[index]
            if len(column) == 1:
                supplies[seat] += 1 << (3 * column.pop())
            else:
                if rng.random() < noise:
                    kind_colour = column[rng.randrange(len(column))]
                else:
                    potential = potentials[seat]
                    supply = supplies[seat]
                    kind_colour, best = -1, -1
                    for k in column:
                        value = potential.delta(supply, k) * 8 + VALUE_OF_TYPE[k]
                        if value > best:
                            kind_colour, best = k, value
                column.remove(kind_colour)
                supplies[seat] += 1 << (3 * kind_colour)
            seat = (seat + 1) % players
            while index >= 0 and not columns[index]:
                index -= 1

    def _rewards(self, supplies: list[int]) -> tuple[list[float], list[int]]:
        gains = [p.gain(s) for p, s in zip(self.potentials, supplies, strict=True)]
        rivalry = self.rivalry
        margins = []
        for seat, gain in enumerate(gains):
            best_other = max(g for s, g in enumerate(gains) if s != seat)
            margins.append(gain - rivalry * best_other)
        return margins, gains

    # --- phase 1: the tree search ---------------------------------------------------------

    def run(self, budget: Budget) -> SearchResult:
        start = time.process_time()
        capped = self._grow(budget, start)
        calibration = {}
        if not capped:
            calibration = self._calibrate(budget, start)
        return self._result(calibration, capped, time.process_time() - start)

    def _grow(self, budget: Budget, start: float) -> bool:
        """Run the tree search's iterations; return True if the time cap stopped it."""
        root_columns = self._columns
        root_supplies = list(self.position.supplies)
        log, sqrt = math.log, math.sqrt
        c = self.exploration
        rng = self.rng
        root_margins, root_gains = self.root_margins, self.root_gains
        for n in range(budget.iterations):
            if (
                budget.time_cap is not None
                and not n & 63
                and time.process_time() - start > budget.time_cap
            ):
                return True
            columns = [column[:] for column in root_columns]
            supplies = root_supplies[:]
            node = self.root
            seat = self.position.seat
            path = [node]
            while not node.untried and node.children:  # selection
                parent_log = log(node.visits)
                best, best_value, kind_colour = node, -math.inf, -1
                for k, child in node.children.items():
                    value = child.margin / child.visits + c * sqrt(parent_log / child.visits)
                    if value > best_value:
                        best, best_value, kind_colour = child, value, k
                seat = self._take(columns, supplies, seat, kind_colour)
                node = best
                path.append(node)
            if node.untried:  # expansion
                kind_colour = node.untried.pop()
                seat = self._take(columns, supplies, seat, kind_colour)
                child = self._node(seat, columns, supplies)
                node.children[kind_colour] = child
                node = child
                path.append(node)
            self._playout(columns, supplies, seat, rng)
            margins, gains = self._rewards(supplies)
            path[0].visits += 1
            for parent, child in pairwise(path):  # back-up
                child.visits += 1
                child.margin += margins[parent.seat]
                child.gain += gains[parent.seat]
            for s in range(self.players):
                root_margins[s] += margins[s]
                root_gains[s] += gains[s]
            self.iterations += 1
        return False

    # --- phase 2: calibration -------------------------------------------------------------

    def overrating(self, kind_colour: int, budget: Budget, seats: Sequence[int]) -> list[float]:
        """How much the bound overrates, on average over `budget.samples` playouts from the
        position after the seat takes a tile of this type, the final tiles of each of `seats`
        (0 for the others). The i-th playout draws the same random numbers whatever the choice,
        so that choices are compared on the same futures."""
        gaps = [0.0] * self.players
        if budget.samples <= 0:
            return gaps
        for i in range(budget.samples):
            rng = random.Random(f"calibrate {self.seed} {self.position.key()} {i}")
            columns = [column[:] for column in self._columns]
            supplies = list(self.position.supplies)
            after = self._take(columns, supplies, self.position.seat, kind_colour)
            self._playout(columns, supplies, after, rng)
            for seat in seats:
                gaps[seat] += self._overrated(seat, supplies[seat], budget)
        return [gap / budget.samples for gap in gaps]

    def _judged(self) -> list[int]:
        """The seats whose overrating a choice's value corrects: the seat, and with two players
        its opponent (the margin is the difference of the two)."""
        seat = self.position.seat
        return [seat, (seat + 1) % 2] if self.players == 2 else [seat]

    def _overrated(self, seat: int, supply: int, budget: Budget) -> int:
        exact = exact_gain(self.position.colours[seat], supply, budget.solver_nodes)
        return self.potentials[seat].gain(supply) - exact

    def _calibrate(self, budget: Budget, start: float) -> dict[int, tuple[float, float]]:
        if budget.samples <= 0 or budget.calibrate <= 0 or len(self.root.children) < 2:
            return {}
        ranked = sorted(
            self.root.children.items(), key=lambda item: (-item[1].visits, -item[1].margin)
        )
        found = {}
        for kind_colour, _ in ranked[: budget.calibrate]:
            if budget.time_cap is not None and time.process_time() - start > budget.time_cap:
                break
            gaps = self.overrating(kind_colour, budget, self._judged())
            seat = self.position.seat
            found[kind_colour] = (gaps[seat], gaps[(seat + 1) % self.players])
        return found

    def _result(
        self, calibration: dict[int, tuple[float, float]], capped: bool, seconds: float
    ) -> SearchResult:
        seat = self.position.seat
        column = self.position.draw_tiles()
        choices = []
        for kind_colour, child in self.root.children.items():
            tile = next(t for t in column if TYPE_OF[t] == kind_colour)
            margin = child.margin / child.visits
            gain = child.gain / child.visits
            own, theirs = calibration.get(kind_colour, (None, None))
            choices.append(
                Choice(
                    tile=tile,
                    visits=child.visits,
                    margin=margin,
                    gain=gain,
                    gap=own,
                    opponent_gap=theirs,
                    value=margin if own is None or theirs is None else margin - own + theirs,
                    score=gain - (own or 0.0) - 2 * self.final_counts[seat],
                )
            )
        # The calibrated choices by value, then the others by visits.
        choices.sort(
            key=lambda c: (
                c.gap is None,
                -c.value if c.gap is not None else 0,
                -c.visits,
                -c.margin,
                column.index(c.tile),
            )
        )
        n = max(1, self.iterations)
        expected = [self.root_gains[s] / n - 2 * self.final_counts[s] for s in range(self.players)]
        return SearchResult(seat, choices, self.iterations, expected, capped, seconds)


@dataclass
class Evaluation:
    """Every choice of a position judged with the same effort (`evaluate`), best first by
    value, and the expected final score of every seat after `taken` (when given), calibrated
    for every seat."""

    seat: int
    choices: list[Choice]
    after_taken: list[float] | None
    iterations: int
    capped: bool = False

    @property
    def best(self) -> Choice:
        return self.choices[0]

    def of(self, tile: int) -> Choice | None:
        kind_colour = TYPE_OF[tile]
        return next((c for c in self.choices if TYPE_OF[c.tile] == kind_colour), None)


def evaluate(
    position: Position,
    budget: Budget,
    *,
    taken: int | None = None,
    seed: int = 0,
    potentials: Sequence[Potential] | None = None,
    **options: Any,
) -> Evaluation:
    """Judge every choice of the position with the same effort: a tree search of
    `budget.iterations / choices` iterations from the position after it (the seats then play
    on as the search sees best), and its calibration (`budget.samples` playouts, the same for
    every choice). A choice's `margin` and `gain` are the means of those playouts for the seat
    to draft. With `taken`, also every seat's expected final score after it."""
    start = time.process_time()
    parent = Search(position, seed=seed, potentials=potentials, **options)
    potentials = parent.potentials
    tiles = position.choices()
    if not tiles:
        raise ValueError("there is no choice to judge in this position")
    seat = position.seat
    per_choice = max(1, budget.iterations // len(tiles))
    measured = []
    capped_any = False
    iterations = 0
    for tile in tiles:
        kind_colour = TYPE_OF[tile]
        child = position.after(tile)
        sub = Search(child, seed=seed, potentials=potentials, stream=position.key(), **options)
        spent = time.process_time() - start
        left = None if budget.time_cap is None else budget.time_cap - spent
        capped = sub._grow(
            replace(budget, iterations=per_choice, time_cap=left), time.process_time()
        )
        if sub.iterations == 0:  # the pool is empty after it: the playouts are all alike
            sub._grow(replace(budget, iterations=1, time_cap=None), time.process_time())
        iterations += sub.iterations
        n = sub.iterations
        is_taken = taken is not None and TYPE_OF[taken] == kind_colour
        judged = list(range(position.players)) if is_taken else parent._judged()
        # Once the time cap has struck, no more calibration (and none is used: the values stay
        # comparable), but every choice is still judged.
        capped_any = capped_any or capped
        gaps = parent.overrating(
            kind_colour, budget if not capped_any else replace(budget, samples=0), judged
        )
        measured.append((tile, n, sub, gaps, is_taken))
    calibrated = budget.samples > 0 and not capped_any
    choices = []
    after_taken = None
    for tile, n, sub, gaps, is_taken in measured:
        if not calibrated:
            gaps = [0.0] * position.players
        own, theirs = gaps[seat], gaps[(seat + 1) % position.players]
        margin = sub.root_margins[seat] / n
        gain = sub.root_gains[seat] / n
        if is_taken:
            after_taken = [
                sub.root_gains[s] / n - gaps[s] - 2 * parent.final_counts[s]
                for s in range(position.players)
            ]
        choices.append(
            Choice(
                tile=tile,
                visits=n,
                margin=margin,
                gain=gain,
                gap=own if calibrated else None,
                opponent_gap=theirs if calibrated else None,
                value=margin - own + (theirs if position.players == 2 else 0.0),
                score=gain - own - 2 * parent.final_counts[seat],
            )
        )
    column = position.draw_tiles()
    choices.sort(key=lambda c: (-c.value, column.index(c.tile)))
    return Evaluation(seat, choices, after_taken, iterations, capped_any)


def search(
    position: Position,
    budget: Budget | None = None,
    *,
    seed: int = 0,
    potentials: Sequence[Potential] | None = None,
    **options: Any,
) -> SearchResult:
    """Search the position within `budget`; return the choices, best first."""
    return Search(position, seed=seed, potentials=potentials, **options).run(budget or Budget())
