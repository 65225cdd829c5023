"""Reads about the past: each player's archive of games, the replay of a finished game, the
leaderboard, profile statistics and the rating chart.

Like games/selectors.py, every function here runs a fixed number of queries whatever the number of
games in the database; the replay rebuilds each step from the event log with the rules engine.
"""

from dataclasses import dataclass

from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import Avg, Count, F, Max, Prefetch, Q, QuerySet, Sum
from django.utils.translation import gettext_lazy

from accounts.models import User
from games import selectors
from games.history.ratings import INITIAL
from games.models import PROVISIONAL_GAMES, Game, Rating, RatingChange, Seat

ARCHIVE_PAGE_SIZE = 20


LEADERBOARD_PAGE_SIZE = 50


LEADERBOARD_MIN_GAMES = PROVISIONAL_GAMES


RESULT_CHOICES = [
    ("won", gettext_lazy("won (first place, shared or not)")),
    ("lost", gettext_lazy("not won")),
    ("playing", gettext_lazy("still playing")),
]


def archive_seats(
    player, *, viewer, result: str = "", player_count: int | None = None, opponent=None
) -> QuerySet[Seat]:
    """Return the player's seats at started games that `viewer` may see (a private table only
    to its players and invitees): running ones first, then the finished ones, the last to end
    first.

    Each seat brings its game, the game's seats with their players (best place first), and the
    player's rating change for it as `game.player_changes` (a list of at most one).
    """
    seats = Seat.objects.filter(
        user=player, game__status__in=[Game.Status.PLAYING, Game.Status.ENDED]
    )
    if getattr(viewer, "pk", None) != player.pk:
        seats = seats.filter(game__in=Game.objects.filter(selectors.visible_games(viewer)))
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
        selectors.with_listed_games(seats)
        .order_by(F("game__ended_at").desc(nulls_first=True), "-game__started_at", "-game_id")
        .prefetch_related(
            Prefetch("game__seats", queryset=selectors.listed_seats().order_by("place", "number")),
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


# Counting the ranked players (for the leaderboard's pages) joins every rating to its account:
# the one whole read of a big table the history pages made (at 50,000 players, 25-100 ms a page;
# docs/performance.md). The count changes when a rated game ends, which writes a rating change,
# or when an account is closed: kept per newest rating change, and for a minute at most.
RANKED_COUNT_SECONDS = 60


def leaderboard_page(number, per_page: int, viewer=None) -> Page:
    """The leaderboard's page `number` (any text; out of range gives the nearest page), as
    `viewer` may see it (`leaderboard`)."""
    paginator = Paginator(leaderboard(viewer), per_page)
    newest = RatingChange.objects.order_by("-pk").values_list("pk", flat=True).first()
    visitor = not getattr(viewer, "is_authenticated", True)
    key = f"leaderboard:ranked:{newest}:{'visitor' if visitor else 'player'}"
    count = cache.get(key)
    if count is None:
        count = leaderboard(viewer).count()
        cache.set(key, count, RANKED_COUNT_SECONDS)
    paginator.count = count  # in place of the paginator's own count of the same query
    return paginator.get_page(number)


def leaderboard(viewer=None) -> QuerySet[Rating]:
    """Players with at least LEADERBOARD_MIN_GAMES rated games, best rating first; to a
    signed-out `viewer`, without those who show their rating to signed-in players only
    (accounts/privacy.py)."""
    ratings = Rating.objects.filter(games__gte=LEADERBOARD_MIN_GAMES, user__is_active=True)
    if not getattr(viewer, "is_authenticated", True):
        ratings = ratings.exclude(user__games_shown_to=User.GamesShownTo.SIGNED_IN)
    return ratings.select_related("user").order_by("-display", "user__username")


@dataclass(frozen=True)
class Statistics:
    played: int
    playing: int
    wins: int
    average_score: float | None
    best_chip_tiles: int | None
    best_chip_value: int | None
    timeouts: int
    resignations: int
    abandonments: int  # seats handed to the server: too many timeouts, or the others' vote

    @property
    def win_rate(self) -> int | None:
        return round(100 * self.wins / self.played) if self.played else None


def statistics(player) -> Statistics:
    """Return the player's totals over their finished games (timeouts, resignations and
    abandoned seats: over every game, finished or not)."""
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
        resignations=Count("id", filter=Q(left=Seat.Left.RESIGNED)),
        abandonments=Count("id", filter=Q(left__in=[Seat.Left.ABANDONED, Seat.Left.EXPELLED])),
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
