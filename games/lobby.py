"""The lobby's reads: the tables waiting for players, a table's waiting room, the games being
played that a viewer may watch, and how every list of games reads its rows (`listed_seats`).

Every function here runs a fixed number of queries whatever the number of players or games.
"""

from django.db.models import Count, Prefetch, QuerySet

from accounts import blocking
from accounts.models import User
from games.access import Viewer, visible_games
from games.models import Game, Seat

# A list of games (the dashboard, the lobby, an archive) shows who sits where, scores and places,
# never a board, a tray or the pool: those JSON columns, most of a row's bytes and of the time to
# read it, stay in the database.
SEAT_BULK = ("tray", "board", "colours", "undo", "redo", "queued_draft", "best_board")
GAME_BULK = ("pool", "pending_draft")
# A listed player is a name, and whether a computer or a program plays it (`bot_badge`): their
# other columns (dates, settings, the password hash) are most of what a list spends making its
# players.
USER_LISTED = ("id", "username", "bot_level", "bot_owner_id")
USER_BULK = tuple(
    f"user__{field.attname}"
    for field in User._meta.concrete_fields
    if field.attname not in USER_LISTED
)


def listed_seats() -> QuerySet[Seat]:
    """The seats of listed games, with their players' names, without their boards."""
    return Seat.objects.select_related("user").defer(*SEAT_BULK, *USER_BULK)


def with_listed_games(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    """`seats` with their games, for a list: neither the boards nor the pools."""
    return seats.select_related("game").defer(*SEAT_BULK, *(f"game__{name}" for name in GAME_BULK))


def open_games(
    *,
    player_count: int | None = None,
    rated: bool | None = None,
    exclude_user: User | None = None,
    viewer: Viewer | None = None,
) -> QuerySet[Game]:
    """Tables waiting for players that anyone may join, newest first; for `viewer`, none where
    someone sits who is in a block with them, whoever blocked whom (accounts/blocking.py)."""
    games = (
        Game.objects.filter(status=Game.Status.WAITING, access=Game.Access.OPEN)
        .select_related("created_by")
        .annotate(seated=Count("seats"))
        .order_by("-created_at")
    )
    kept_apart = blocking.blocked_ids(getattr(viewer, "pk", None))
    if kept_apart:
        games = games.exclude(seats__user_id__in=kept_apart)
    if player_count:
        games = games.filter(player_count=player_count)
    if rated is not None:
        games = games.filter(rated=rated)
    return games.defer(*GAME_BULK).prefetch_related(Prefetch("seats", queryset=listed_seats()))


def waiting_room(game: Game, viewer: Viewer | None, seats: list[Seat] | None = None) -> dict:
    """What the waiting room of a table shows its viewer: the seats (with their users), whether
    the viewer has one and created the table, the free seats. One query, none with `seats`; the
    same for the page and for its pushes (games/drawing/updates.py `draw_lobby`)."""
    if seats is None:
        seats = list(game.seats.select_related("user").order_by("number"))
    user_id = getattr(viewer, "pk", None)
    seated = user_id is not None and any(seat.user_id == user_id for seat in seats)
    return {
        "game": game,
        "seats": seats,
        "seated": seated,
        # An invitee who may say no (the page only: a push draws no form).
        "invited": lambda: (
            not seated and user_id is not None and game.invitations.filter(user_id=user_id).exists()
        ),
        "is_creator": user_id is not None and user_id == game.created_by_id,
        "free_seats": max(game.player_count - len(seats), 0) if game.is_waiting else 0,
    }


WATCH_LIMIT = 25


def games_to_watch(user: Viewer, *, limit: int = WATCH_LIMIT) -> list[Game]:
    """Games being played now that `user` may watch, the most recent turn first (at most
    `limit`): every public table, and the private ones where the user has a seat or an
    invitation. Two queries (the games, their seats with their players), however many."""
    games = Game.objects.filter(visible_games(user), status=Game.Status.PLAYING)
    return list(
        # A game in play always has its turn's start: the order of games_game_watch.
        games.order_by("-turn_started_at", "-started_at", "-pk")
        .defer(*GAME_BULK)
        .prefetch_related(Prefetch("seats", queryset=listed_seats().order_by("number")))[:limit]
    )
