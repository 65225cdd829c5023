"""What the replay shows of a game's review (templates/review/partials/): the engine's choice
beside the draft of the step shown, the value lost, the chart of each player's expected score
over the game, each player's accuracy and biggest mistakes (linked to their step of the
replay), and hindsight's best chip on each player's board. Worked out here; the templates draw.

A review's draft `step` is the index of its `Draft` event among the game's rules events, the
replay's steps (games/history/replay.py): the replay shows the draft made at step + 1."""

from dataclasses import dataclass, field

from django.utils.translation import pgettext

from games.drawing.spaces import SpaceView, TileView, space_views, tile_view
from games.models import Seat
from games.review.models import GameReview
from games.rules.board import Board, Placed, colours_from_names

CHART_WIDTH, CHART_HEIGHT = 640, 240
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 44, 16, 14, 30
TOP_MISTAKES = 5


@dataclass(frozen=True)
class DraftRow:
    """One draft a player chose, as the engine judged it."""

    number: int  # the draft's number in the game (forced takes counted)
    step: int  # the replay's step that shows it made
    seat: int
    player: str
    taken: TileView
    best: TileView
    value_taken: float
    value_best: float
    loss: float
    accuracy: float

    @property
    def engine_agrees(self) -> bool:
        return self.loss == 0

    @property
    def mistake(self) -> bool:
        return self.loss >= MISTAKE_LOSS


MISTAKE_LOSS = 3.0  # the rules review's (games/rules/review.py MISTAKE_LOSS)


@dataclass(frozen=True)
class SeatFigures:
    """A player's figures: accuracy, value lost, their biggest mistakes, hindsight."""

    seat: int
    player: str
    drafts: int
    accuracy: float | None
    mean_loss: float
    total_loss: float
    final_score: int
    mistakes: list[DraftRow]
    hindsight_score: int | None = None
    hindsight_proved: bool = False
    hindsight_changes: int = 0
    hindsight_spaces: list[SpaceView] = field(default_factory=list)


@dataclass(frozen=True)
class ChartLine:
    seat: int
    player: str
    points: str  # an SVG polyline's points
    last_x: float
    last_y: float
    last_value: float


@dataclass(frozen=True)
class ChartMark:
    x: float
    y: float
    row: DraftRow


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass
class ReviewChart:
    """Each player's expected final score after every reviewed draft, as SVG geometry."""

    lines: list[ChartLine]
    marks: list[ChartMark]  # the mistakes, on their player's line
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    step_x: float | None  # the draft of the step shown
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    left: int = CHART_LEFT
    right: int = CHART_WIDTH - CHART_RIGHT
    top: int = CHART_TOP
    bottom: int = CHART_HEIGHT - CHART_BOTTOM


@dataclass
class ReplayReview:
    """The review as the replay shows it; `pending` while the task has not stored it."""

    pending: bool
    measure: str = ""
    complete: bool = True
    rows: list[DraftRow] = field(default_factory=list)
    seats: list[SeatFigures] = field(default_factory=list)
    mistakes: list[DraftRow] = field(default_factory=list)
    chart: ReviewChart | None = None
    here: DraftRow | None = None  # the draft made at the step shown, if one was reviewed
    next_row: DraftRow | None = None  # the next reviewed draft after the step shown

    @property
    def margin(self) -> bool:
        return self.measure == "margin"


def replay_review(game, seats: list[Seat], step: int | None = None) -> ReplayReview:
    """The review of `game` as its replay shows it at `step` (one query)."""
    stored = GameReview.objects.filter(game_id=game.pk).first()
    if stored is None:
        return ReplayReview(pending=True)
    return review_view(stored, seats, step)


def review_view(stored: GameReview, seats: list[Seat], step: int | None = None) -> ReplayReview:
    data = stored.drafts
    names = {seat.number: seat.user.username for seat in seats}
    rows = [
        DraftRow(
            number=d["number"],
            step=d["step"] + 1,
            seat=d["seat"],
            player=names.get(d["seat"], ""),
            taken=tile_view(d["taken"]),
            best=tile_view(d["best"]),
            value_taken=d["value_taken"],
            value_best=d["value_best"],
            loss=d["loss"],
            accuracy=d["accuracy"],
        )
        for d in data["drafts"]
    ]
    by_number = {row.number: row for row in rows}
    hindsight = {h["seat"]: h for h in stored.hindsight}
    colours = {seat.number: seat.colours for seat in seats}
    figures = []
    for seat in data["seats"]:
        number = seat["seat"]
        found = hindsight.get(number)
        figures.append(
            SeatFigures(
                seat=number,
                player=names.get(number, ""),
                drafts=seat["drafts"],
                accuracy=seat["accuracy"],
                mean_loss=seat["mean_loss"],
                total_loss=seat["total_loss"],
                final_score=seat["final_score"],
                mistakes=[by_number[n] for n in seat["mistakes"] if n in by_number],
                **(_hindsight(found, colours.get(number)) if found else {}),
            )
        )
    here = next((row for row in rows if row.step == step), None)
    following = next((row for row in rows if step is not None and row.step > step), None)
    return ReplayReview(
        pending=False,
        measure=data["measure"],
        complete=stored.complete,
        rows=rows,
        seats=figures,
        mistakes=[by_number[n] for n in data["mistakes"] if n in by_number][:TOP_MISTAKES],
        chart=_chart(data, rows, names, here),
        here=here,
        next_row=following,
    )


def _hindsight(found: dict, colours) -> dict:
    spaces = []
    if colours:
        cells = [None if c is None else Placed(c[0], c[1]) for c in found["cells"]]
        spaces = space_views(Board(colours_from_names(colours), cells))
    return {
        "hindsight_score": found["best_score"],
        "hindsight_proved": found["proved"],
        "hindsight_changes": len(found["changes"]),
        "hindsight_spaces": spaces,
    }


def _chart(data: dict, rows: list[DraftRow], names: dict, here: DraftRow | None):
    drafts = data["drafts"]
    if not drafts:
        return None
    players = data["players"]
    # x: the draft number (0, the deal, to the last draft); y: the expected final score.
    series = [[] for _ in range(players)]
    for d in drafts:
        for seat, value in enumerate(d["expected_scores"][:players]):
            series[seat].append((d["number"], value))
    finals = {seat["seat"]: seat["final_score"] for seat in data["seats"]}
    last_number = max(d["number"] for d in drafts)
    values = [v for line in series for _, v in line] + list(finals.values())
    low, high = min(values), max(values)
    step = _tick_step(high - low)
    low = (low // step) * step
    high = max(-(-high // step) * step, low + step)
    chart = ReviewChart(lines=[], marks=[], y_ticks=[], x_ticks=[], step_x=None)
    span_x = last_number + 1  # the final scores one draft after the last

    def x_of(number: float) -> float:
        return chart.left + (chart.right - chart.left) * number / span_x

    def y_of(value: float) -> float:
        return chart.bottom - (chart.bottom - chart.top) * (value - low) / (high - low)

    for seat, line in enumerate(series):
        points = [(x_of(n), y_of(v)) for n, v in line]
        if seat in finals:
            points.append((x_of(span_x), y_of(finals[seat])))
        if not points:
            continue
        chart.lines.append(
            ChartLine(
                seat=seat,
                player=names.get(seat, ""),
                points=" ".join(f"{x:.1f},{y:.1f}" for x, y in points),
                last_x=points[-1][0],
                last_y=points[-1][1],
                last_value=finals.get(seat, line[-1][1] if line else 0),
            )
        )
    expected = {d["number"]: d["expected_scores"] for d in drafts}
    for row in rows:
        if row.mistake and row.seat < players:
            chart.marks.append(
                ChartMark(x_of(row.number), y_of(expected[row.number][row.seat]), row)
            )
    value = low
    while value <= high:
        chart.y_ticks.append(Tick(y_of(value), f"{value:g}"))
        value += step
    every = 10 if last_number > 24 else 5
    for number in range(0, last_number + 1, every):
        chart.x_ticks.append(Tick(x_of(number), str(number)))
    chart.x_ticks.append(Tick(x_of(span_x), pgettext("the end of a game, on a chart", "end")))
    if here is not None:
        chart.step_x = x_of(here.number)
    return chart


def _tick_step(span: float) -> int:
    for step in (5, 10, 20, 25, 50):
        if span / step <= 5:
            return step
    return 100
