from dataclasses import dataclass, field

from games.models import RatingChange

CHART_WIDTH, CHART_HEIGHT = 640, 220
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 48, 12, 12, 28
CHART_MAX_POINTS = 400  # more games than this are thinned out: the line looks the same


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    rating: int
    game_id: int | None
    when: object
    games: int


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass
class RatingChart:
    """The geometry of a rating history drawn as an SVG line (templates/games/partials/
    rating_chart.html): the template draws; this decides where."""

    points: list[ChartPoint]
    y_ticks: list[Tick] = field(default_factory=list)
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    left: int = CHART_LEFT
    right: int = CHART_WIDTH - CHART_RIGHT
    top: int = CHART_TOP
    bottom: int = CHART_HEIGHT - CHART_BOTTOM

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x:.1f},{point.y:.1f}" for point in self.points)

    @property
    def first(self) -> ChartPoint:
        return self.points[0]

    @property
    def last(self) -> ChartPoint:
        return self.points[-1]

    @property
    def dots(self) -> list[ChartPoint]:
        """The points to mark one by one (all but the start, when there are few enough)."""
        return self.points[1:] if len(self.points) <= 60 else [self.points[-1]]


def rating_chart(player) -> RatingChart | None:
    """Return the chart of the player's rating after each rated game (None before the first)."""
    history = list(
        RatingChange.objects.filter(user=player)
        .order_by("created_at", "id")
        .values_list("display_before", "display", "game_id", "created_at", "games")
    )
    if not history:
        return None
    start = history[0]
    series = [(start[0], None, None, 0)] + [
        (display, game_id, when, games) for _, display, game_id, when, games in history
    ]
    if len(series) > CHART_MAX_POINTS:
        step = len(series) / (CHART_MAX_POINTS - 1)
        kept = [series[round(i * step)] for i in range(CHART_MAX_POINTS - 1)]
        series = [*kept, series[-1]]
    return _chart(series)


def _chart(series) -> RatingChart:
    chart = RatingChart(points=[])
    ratings = [rating for rating, *_ in series]
    low, high = min(ratings), max(ratings)
    step = _tick_step(high - low)
    low = (low // step) * step
    high = max(-(-high // step) * step, low + step)
    span_x = max(len(series) - 1, 1)
    for index, (rating, game_id, when, games) in enumerate(series):
        x = chart.left + (chart.right - chart.left) * index / span_x
        y = chart.bottom - (chart.bottom - chart.top) * (rating - low) / (high - low)
        chart.points.append(ChartPoint(x, y, rating, game_id, when, games))
    for value in range(low, high + 1, step):
        y = chart.bottom - (chart.bottom - chart.top) * (value - low) / (high - low)
        chart.y_ticks.append(Tick(y, str(value)))
    return chart


def _tick_step(span: int) -> int:
    """Return a round distance between gridlines that gives about four of them."""
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 5:
            return step
    return 2000
