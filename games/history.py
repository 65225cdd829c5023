"""Reads about the past: each player's archive of games, the replay of a finished game, the
leaderboard, profile statistics and the rating chart.

Like games/selectors.py, every function here runs a fixed number of queries whatever the number of
games in the database; the replay rebuilds each step from the event log with the rules engine.
"""

import copy
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Avg, Count, F, Max, Prefetch, Q, QuerySet, Sum

from games import rules
from games.rules.deal import LAYOUTS

from .models import Event, Game, Rating, RatingChange, Seat
from .ratings import INITIAL, PROVISIONAL_GAMES
from .selectors import GameView, SeatView, space_views, tile_view

ARCHIVE_PAGE_SIZE = 20
LEADERBOARD_PAGE_SIZE = 50
LEADERBOARD_MIN_GAMES = PROVISIONAL_GAMES

# --- the archive -------------------------------------------------------------------------------

RESULT_CHOICES = [
    ("won", "won (first place, shared or not)"),
    ("lost", "not won"),
    ("playing", "still playing"),
]


def archive_seats(
    player, *, result: str = "", player_count: int | None = None, opponent=None
) -> QuerySet[Seat]:
    """Return the player's seats at started games: running ones first, then the finished ones,
    the last to end first.

    Each seat brings its game, the game's seats with their players (best place first), and the
    player's rating change for it as `game.player_changes` (a list of at most one).
    """
    seats = Seat.objects.filter(
        user=player, game__status__in=[Game.Status.PLAYING, Game.Status.ENDED]
    )
    if result == "won":
        seats = seats.filter(game__status=Game.Status.ENDED, place=1)
    elif result == "lost":
        seats = seats.filter(game__status=Game.Status.ENDED, place__gt=1)
    elif result == "playing":
        seats = seats.filter(game__status=Game.Status.PLAYING)
    if player_count:
        seats = seats.filter(game__player_count=player_count)
    if opponent is not None:
        seats = seats.filter(game__in=Seat.objects.filter(user=opponent).values("game_id"))
    return (
        seats.select_related("game")
        .order_by(F("game__ended_at").desc(nulls_first=True), "-game__started_at", "-game_id")
        .prefetch_related(
            Prefetch(
                "game__seats",
                queryset=Seat.objects.select_related("user").order_by("place", "number"),
            ),
            Prefetch(
                "game__rating_changes",
                queryset=RatingChange.objects.filter(user=player),
                to_attr="player_changes",
            ),
        )
    )


def paginate(queryset, number, per_page: int) -> Page:
    """Return the page `number` (any text; out of range gives the nearest page)."""
    return Paginator(queryset, per_page).get_page(number)


# --- the leaderboard ---------------------------------------------------------------------------


def leaderboard() -> QuerySet[Rating]:
    """Players with at least LEADERBOARD_MIN_GAMES rated games, best rating first."""
    return (
        Rating.objects.filter(games__gte=LEADERBOARD_MIN_GAMES, user__is_active=True)
        .select_related("user")
        .order_by("-display", "user__username")
    )


# --- a player's profile ------------------------------------------------------------------------


@dataclass(frozen=True)
class Statistics:
    played: int
    playing: int
    wins: int
    average_score: float | None
    best_chip_tiles: int | None
    best_chip_value: int | None
    timeouts: int

    @property
    def win_rate(self) -> int | None:
        return round(100 * self.wins / self.played) if self.played else None


def statistics(player) -> Statistics:
    """Return the player's totals over their finished games (timeouts: over every game)."""
    ended = Q(game__status=Game.Status.ENDED)
    totals = Seat.objects.filter(
        user=player, game__status__in=[Game.Status.PLAYING, Game.Status.ENDED]
    ).aggregate(
        played=Count("id", filter=ended),
        playing=Count("id", filter=Q(game__status=Game.Status.PLAYING)),
        wins=Count("id", filter=ended & Q(place=1)),
        average_score=Avg("score", filter=ended),
        best_chip_tiles=Max("chip_tiles", filter=ended),
        best_chip_value=Max("chip_value", filter=ended),
        timeouts=Sum("timeouts"),
    )
    totals["timeouts"] = totals["timeouts"] or 0
    return Statistics(**totals)


def rating_of(player) -> Rating:
    """Return the player's rating, or an unsaved starting one if they have no rated game."""
    rating = Rating.objects.filter(user=player).first()
    if rating is None:
        rating = Rating(
            user=player, mu=INITIAL.mu, sigma=INITIAL.sigma, display=INITIAL.display, games=0
        )
    return rating


# --- the rating chart --------------------------------------------------------------------------

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


# --- the replay --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    number: int | None  # None: the finishing phase after the last draft
    step: int  # the step at which it begins
    seat: int | None  # who drafts in it
    player: str = ""

    @property
    def label(self):
        return "finishing" if self.number is None else f"turn {self.number}"


class Replay:
    """A finished game as a sequence of steps: step 0 is the deal, step n the state after the
    n-th rules event of the log. Loads the game's seats and events once (2 queries)."""

    def __init__(self, game: Game):
        self.game = game
        self.seats = list(game.seats.select_related("user").order_by("number"))
        events = list(game.events.order_by("number"))
        start = next(event for event in events if event.kind == "started")
        self.players = start.data["players"]
        self.seed = start.data["seed"]
        self.first_seat = start.data["first_seat"]
        self.events: list[Event] = [event for event in events if event.action is not None]
        self.turns, self.turn_of_step = self._turns()

    @property
    def last_step(self) -> int:
        return len(self.events)

    def clamp(self, step) -> int:
        try:
            step = int(step)
        except (TypeError, ValueError):
            return 0
        return min(max(step, 0), self.last_step)

    def state_at(self, step: int) -> rules.GameState:
        """Return the rules state after the first `step` events (the rules engine folds them)."""
        state = rules.new_game(self.players, self.seed, self.first_seat)
        for event in self.events[:step]:
            state = state.apply(event.action, event.seat)
        return state

    def states(self):
        """Yield the state at every step, 0 to the last (one fold for all of them)."""
        state = rules.new_game(self.players, self.seed, self.first_seat)
        yield state
        for event in self.events:
            state = state.apply(event.action, event.seat)
            yield state

    def step_of_turn(self, number) -> int | None:
        for turn in self.turns:
            if str(turn.number) == str(number) or (turn.number is None and number == "finishing"):
                return turn.step
        return None

    def event_at(self, step: int) -> Event | None:
        return self.events[step - 1] if step > 0 else None

    def describe(self, step: int) -> str:
        """Return what happened at `step`, in words."""
        event = self.event_at(step)
        if event is None:
            return "The deal: the pool is laid out and every board is empty."
        return describe_event(event, self.seats[event.seat].user.username)

    def view_at(self, step: int) -> GameView:
        return replay_view(self.game, self.seats, self.state_at(step))

    def _turns(self) -> tuple[list[Turn], list[int | None]]:
        total = self.players * LAYOUTS[self.players][3]
        names = [seat.user.username for seat in self.seats]
        turns = [Turn(1, 0, self.first_seat, names[self.first_seat])]
        turn_of_step: list[int | None] = [1]
        drafts = 0
        for step, event in enumerate(self.events, start=1):
            if event.kind in ("confirm_draft", "take_last"):
                drafts += 1
                if drafts < total:
                    seat = (event.seat + 1) % self.players  # the turn passes round the table
                    turns.append(Turn(drafts + 1, step, seat, names[seat]))
                else:
                    turns.append(Turn(None, step, None))
            # The turn the position belongs to: the next draft's, once one is complete.
            turn_of_step.append(drafts + 1 if drafts < total else None)
        return turns, turn_of_step


ACTION_WORDS = {
    "draft": "drafted the {tile}",
    "confirm_draft": "confirmed the draft",
    "undo_draft": "put the drafted tile back",
    "take_last": "took the {tile}, the column's last tile",
    "place": "placed the {tile} on {space}",
    "rotate": "rotated the tile on {space}",
    "move": "moved the tile on {from_space} to {to_space}",
    "swap": "swapped the tiles on {space_a} and {space_b}",
    "return": "returned the tile on {space} to the tray",
    "clear": "cleared the board",
    "finish": "finished",
}
CAUSE_WORDS = {
    Event.Cause.TIMEOUT: " (time ran out)",
    Event.Cause.DEADLINE: " (the finishing time ran out)",
}


def describe_event(event: Event, username: str) -> str:
    action = event.action or {}
    words = {
        "tile": tile_view(action["tile_id"]).label if "tile_id" in action else "",
        **{key: _space_words(action[key]) for key in action if "space" in key},
    }
    text = ACTION_WORDS.get(event.kind, event.kind.replace("_", " ")).format(**words)
    return f"{username} {text}{CAUSE_WORDS.get(event.cause, '')}."


def _space_words(space) -> str:
    row, col = divmod(space, 5)
    return f"row {row + 1}, column {col + 1}"


def replay_view(game: Game, seats: list[Seat], state: rules.GameState) -> GameView:
    """Return the GameView of `state`, for nobody, so the game's own partials draw the replay.

    No selection and no viewer: nothing is interactive. Each seat is a copy whose `finished`
    is the state's, not the final one.
    """
    seat_views = []
    for seat in seats:
        number = seat.number
        board = state.boards[number]
        shown = copy.copy(seat)
        shown.finished = state.finished[number]
        pending = state.pending
        seat_views.append(
            SeatView(
                seat=shown,
                spaces=space_views(board),
                tray=[tile_view(tile) for tile in state.trays[number]],
                score=state.score(number),
                can_finish=rules.can_finish(board),
                is_viewer=False,
                is_current=state.phase == rules.DRAFTING and state.current == number,
                pending_tile=pending.tile_id if pending and pending.seat == number else None,
                illegal_count=rules.illegal_mask(board).bit_count(),
            )
        )
    return GameView(
        game=game,
        seats=seat_views,
        viewer_seat=None,
        columns=[[tile_view(tile) for tile in column] for column in state.columns],
        removed=[tile_view(tile) for tile in state.removed],
        draw_column=state.draw_column(),
    )
