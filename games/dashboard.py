"""The dashboard's reads: a player's games (their turn first), their invitations, the players
they follow with their games, their finished games and their vacation days.

Every function here runs a fixed number of queries whatever the number of players or games.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import (
    BooleanField,
    Case,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    When,
    Window,
)
from django.db.models.functions import RowNumber
from django.utils import timezone

from accounts import following, vacations
from accounts.models import Block, User
from games import chat
from games.access import visible_games
from games.lobby import listed_seats, with_listed_games
from games.models import Game, Invitation, Seat, waiting_for_move


def dashboard_seats(user: User) -> QuerySet[Seat]:
    """The player's waiting and running games: their turn first, then the soonest deadline."""
    seats = Seat.objects.filter(
        user=user, game__status__in=[Game.Status.WAITING, Game.Status.PLAYING]
    )
    return (
        with_listed_games(seats)
        .annotate(
            my_turn=Case(
                When(waiting_for_move(), then=True), default=False, output_field=BooleanField()
            ),
            unread_chat=chat.unread_of_seat(),
        )
        .order_by("-my_turn", F("game__deadline").asc(nulls_last=True), "-game__created_at")
        .prefetch_related(Prefetch("game__seats", queryset=listed_seats().order_by("number")))
    )


# The dashboard's Following section: for each player followed, this many of their games in
# progress (the latest turn first) and of their latest results.
FOLLOWED_PLAYING = 5
FOLLOWED_RESULTS = 3


@dataclass(frozen=True)
class Followed:
    """A player the viewer follows, with the games of theirs the viewer may see."""

    player: User
    playing: list[Seat]  # their seats at games in progress, each with its game and seats
    results: list[Seat]  # their seats at their latest finished games


def _latest_each(seats: QuerySet[Seat], order: list, per_player: int) -> list[Seat]:
    """The first `per_player` of each player's `seats` by `order`, as listed seats (one query,
    and one for the games' seats): a window numbers each player's rows, so however many games
    they have played, only these are read."""
    numbered = seats.annotate(
        nth=Window(RowNumber(), partition_by=[F("user_id")], order_by=order)
    ).filter(nth__lte=per_player)
    return list(
        with_listed_games(numbered)
        .order_by("user_id", "nth")
        .prefetch_related(Prefetch("game__seats", queryset=listed_seats().order_by("number")))
    )


def followed(user: User) -> list[Followed]:
    """The players `user` follows (by name), each with their games in progress that `user` may
    watch (a private table only if `user` has a seat or an invitation there: `visible_games`)
    and their latest results. Five queries, however many players and games."""
    players = following.followed_players(user)
    if not players:
        return []
    seats = Seat.objects.filter(
        user_id__in=[player.pk for player in players],
        game__in=Game.objects.filter(visible_games(user)),
    )
    playing = _latest_each(
        seats.filter(game__status=Game.Status.PLAYING),
        [F("game__turn_started_at").desc(nulls_last=True), F("game_id").desc()],
        FOLLOWED_PLAYING,
    )
    results = _latest_each(
        seats.filter(game__status=Game.Status.ENDED),
        [F("game__ended_at").desc(nulls_last=True), F("game_id").desc()],
        FOLLOWED_RESULTS,
    )
    return [
        Followed(
            player,
            [seat for seat in playing if seat.user_id == player.pk],
            [seat for seat in results if seat.user_id == player.pk],
        )
        for player in players
    ]


@dataclass(frozen=True)
class Vacation:
    """The player's vacation days as the dashboard shows them (accounts/vacations.py)."""

    on: bool
    until: datetime | None
    left: timedelta

    @property
    def left_words(self) -> str:
        return vacations.days_words(self.left)

    @property
    def max_days(self) -> float:
        """The longest vacation the form offers: the days left, to a tenth, rounded down."""
        return int(self.left / timedelta(days=1) * 10 + 1e-9) / 10

    @property
    def suggested_days(self) -> float:
        return min(7.0, self.max_days)


def vacation_of(user: User, now: datetime | None = None) -> Vacation:
    now = now or timezone.now()
    on = vacations.on_vacation(user, now)
    return Vacation(on, user.vacation_until if on else None, vacations.days_left(user, now))


def recent_finished_seats(user: User, limit: int = 10) -> QuerySet[Seat]:
    return (
        with_listed_games(Seat.objects.filter(user=user, game__status=Game.Status.ENDED))
        .annotate(unread_chat=chat.unread_of_seat())
        .order_by("-game__ended_at")
        .prefetch_related(Prefetch("game__seats", queryset=listed_seats().order_by("number")))[
            :limit
        ]
    )


def invitations_for(user: User) -> QuerySet[Invitation]:
    """The player's invitations to tables still waiting, but those from a player they are in a
    block with (made before the block: its seat would be refused)."""
    return (
        Invitation.objects.filter(user=user, game__status=Game.Status.WAITING)
        .exclude(
            Exists(
                Block.objects.filter(
                    Q(blocker_id=user.pk, blocked_id=OuterRef("invited_by_id"))
                    | Q(blocker_id=OuterRef("invited_by_id"), blocked_id=user.pk)
                )
            )
        )
        .select_related("game", "invited_by")
        .order_by("-created_at")
    )
