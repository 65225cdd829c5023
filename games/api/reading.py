"""The read endpoints: the caller, their games, a game's state and log, a finished game's replay
and analysis, the leaderboard, a player's public profile and games. A read token is enough."""

from typing import Literal
from urllib.parse import urlencode

from django.db.models import Prefetch
from django.http import HttpResponse
from django.utils.translation import gettext as _
from ninja import Field as F
from ninja import Query, Router, Schema

from accounts import privacy
from accounts.models import User
from games import rules, selectors
from games.history import archive
from games.history.replay import rules_events
from games.models import Game, RatingChange, Seat
from games.state_store import read_game

from . import schemas, shapes
from .auth import READ
from .errors import ApiRefusal, Refusal, not_found

router = Router(auth=READ)
# 400: a request no client sends (a NUL in the query: microchip_site/middleware.py).
REFUSALS = {400: Refusal, 401: Refusal, 403: Refusal, 404: Refusal, 422: Refusal, 429: Refusal}
MAX_PAGE = 100
MAX_EVENTS_PAGE = 1000


class Page(Schema):
    limit: int = F(20, ge=1, le=MAX_PAGE)
    offset: int = F(0, ge=0, le=1_000_000)


class GamesPage(Schema):
    count: int
    items: list[schemas.GameSummary]


class MyGamesFilter(Page):
    status: Literal["waiting", "playing", "ended", "cancelled"] | None = None
    your_move: bool | None = F(None, description="Only games waiting (or not) for your move.")


@router.get("/me", response={200: schemas.Me, **REFUSALS}, tags=["players"])
def me(request):
    """The token's player: profile, rating and totals."""
    user = request.auth.user
    return {**_profile(user, user), "time_zone": user.time_zone}


@router.get("/me/games", response={200: GamesPage, **REFUSALS}, tags=["games"])
def my_games(request, filters: Query[MyGamesFilter]):
    """The caller's games, newest first: tables waiting for players, games in progress, ended."""
    user = request.auth.user
    seats = Seat.objects.filter(user=user)
    if filters.status:
        seats = seats.filter(game__status=filters.status)
    if filters.your_move is not None:
        seats = seats.filter(game__status=Game.Status.PLAYING)
    seats = seats.select_related("game").order_by("-game__created_at", "-game_id")
    seats = seats.prefetch_related(
        Prefetch("game__seats", queryset=Seat.objects.select_related("user").order_by("number"))
    )
    if filters.your_move is not None:  # whose move it is lives in the state: read them all
        listed = [_summary(seat.game, user) for seat in seats]
        listed = [game for game in listed if game["your_move"] == filters.your_move]
        return {"count": len(listed), "items": listed[filters.offset :][: filters.limit]}
    count = seats.count()
    page = seats[filters.offset : filters.offset + filters.limit]
    return {"count": count, "items": [_summary(seat.game, user) for seat in page]}


@router.get("/games/{game_id}", response={200: schemas.GameOut, **REFUSALS}, tags=["games"])
def game(request, game_id: int, arranging: bool = False):
    """A game's whole state now, with the caller's legal actions (arranging ones with
    `?arranging=true`)."""
    found, seats = _viewable(request, game_id)
    return shapes.full(found, seats, request.auth.user, arranging=arranging)


NEXT_PAGE = {
    "responses": {
        200: {
            "headers": {
                "Link": {
                    "description": "When more events follow the page: `<...?since=V&limit=N>; "
                    'rel="next"`, the address of the next page (RFC 8288). None: the log ends '
                    "here.",
                    "schema": {"type": "string"},
                }
            }
        }
    }
}


@router.get(
    "/games/{game_id}/events",
    response={200: list[schemas.EventOut], **REFUSALS},
    tags=["games"],
    openapi_extra=NEXT_PAGE,
)
def events(
    request,
    response: HttpResponse,
    game_id: int,
    since: int = Query(0, ge=0, le=2**31 - 1, description="The version you have: events after it."),
    limit: int = Query(
        MAX_EVENTS_PAGE // 2,
        ge=1,
        le=MAX_EVENTS_PAGE,
        description="Events in a page, at most 1000; a `Link` header says when more follow.",
    ),
):
    """The game's event log after version `since`, oldest first: replay it to catch up. A page
    holds at most `limit` events; when more follow, the `Link` header (rel="next") gives the
    next page's address."""
    found, seats = _viewable(request, game_id)
    names = {seat.number: seat.user.username for seat in seats}
    rows = list(found.events.filter(number__gt=since).order_by("number")[:limit])
    hide = not found.is_over
    if len(rows) == limit and rows[-1].number < found.version:
        query = urlencode({"since": rows[-1].number, "limit": limit})
        response["Link"] = f'<{request.path}?{query}>; rel="next"'
    return [shapes.event(row, names, hide_seed=hide) for row in rows]


@router.get(
    "/games/{game_id}/replay",
    response={200: schemas.ReplayOut, **REFUSALS, 409: Refusal},
    tags=["games"],
)
def replay(request, game_id: int):
    """A finished game: its deal, every event, and the post-game analysis once it has run."""
    found, seats = _viewable(request, game_id)
    if not found.is_over or found.seed is None:
        raise ApiRefusal(409, "not_ended", _("The replay is there once the game has ended."))
    start, rule_events = rules_events(found)
    names = {seat.number: seat.user.username for seat in seats}
    analysis = [
        {
            "seat": seat.number,
            "player": shapes.player(seat.user),
            "score": seat.score,
            "place": seat.place,
            "best_score": seat.best_score,
            "best_board": seat.best_board,
            "best_optimal": seat.best_optimal,
        }
        for seat in seats
        if seat.best_score is not None
    ]
    return {
        "game": _summary_of(found, seats, request.auth.user),
        "start": start,
        "events": [shapes.event(row, names, hide_seed=False) for row in rule_events],
        "analysis": analysis,
    }


@router.get(
    "/leaderboard", response={200: list[schemas.LeaderboardRow], **REFUSALS}, tags=["players"]
)
def leaderboard(request, page: Query[Page]):
    """Players with enough rated games, best first."""
    rows = archive.leaderboard()[page.offset : page.offset + page.limit]
    return [
        {"rank": page.offset + index + 1, "player": shapes.player(row.user), "rating": row}
        for index, row in enumerate(rows)
    ]


@router.get("/players/{username}", response={200: schemas.Profile, **REFUSALS}, tags=["players"])
def profile(request, username: str):
    """A player's public profile: rating and totals, unless they show them to no one."""
    return _profile(_player(username), request.auth.user)


@router.get("/players/{username}/games", response={200: GamesPage, **REFUSALS}, tags=["players"])
def player_games(request, username: str, page: Query[Page]):
    """A player's started games that the caller may see, running ones first."""
    target = _shown_player(username, request, _("%(player)s does not show their games."))
    seats = archive.archive_seats(target, viewer=request.auth.user)
    count = seats.count()
    listed = seats[page.offset : page.offset + page.limit]
    items = [_summary_of(seat.game, _in_order(seat.game), request.auth.user) for seat in listed]
    return {"count": count, "items": items}


@router.get(
    "/players/{username}/ratings",
    response={200: list[schemas.RatingStep], **REFUSALS},
    tags=["players"],
)
def rating_history(request, username: str, page: Query[Page]):
    """A player's rating after each rated game, oldest first (the chart on their profile)."""
    target = _shown_player(username, request, _("%(player)s does not show their rating."))
    changes = RatingChange.objects.filter(user=target).order_by("created_at", "id")
    return [
        {
            "game": change.game_id,
            "at": change.created_at,
            "place": change.place,
            "display_before": change.display_before,
            "display": change.display,
            "mu": change.mu,
            "sigma": change.sigma,
            "games": change.games,
        }
        for change in changes[page.offset : page.offset + page.limit]
    ]


@router.get("/tiles", response={200: list[schemas.Tile], **REFUSALS}, tags=["rules"])
def tiles(request):
    """The 60 tiles: what each tile id in a pool, tray or board is."""
    return [
        {
            "id": tile.id,
            "kind": tile.kind.value,
            "colour": tile.colour.value,
            "value": tile.value,
            "paths": list(rules.tiles.TILE_PATHS[tile.id]),
        }
        for tile in rules.tiles.TILES
    ]


# --- helpers -----------------------------------------------------------------------------------


def _viewable(request, game_id: int) -> tuple[Game, list[Seat]]:
    try:
        found, seats = read_game(game_id)
    except Game.DoesNotExist:
        raise not_found() from None
    if not selectors.can_view(found, request.auth.user):
        raise not_found()  # a private table does not reveal itself
    return found, seats


def _summary(game: Game, viewer: User) -> dict:
    return shapes.summary(game, list(game.seats.all()), viewer)


def _summary_of(game: Game, seats: list[Seat], viewer: User) -> dict:
    return shapes.summary(game, seats, viewer)


def _in_order(game: Game) -> list[Seat]:
    return sorted(game.seats.all(), key=lambda seat: seat.number)


def _player(username: str) -> User:
    found = User.objects.named(username).filter(is_active=True).first()
    if found is None:
        raise not_found(_("There is no player called %(name)s.") % {"name": username})
    return found


def _shown_player(username: str, request, hidden: str) -> User:
    """The player, if they show their games and rating to the caller (accounts/privacy.py);
    else 403 with `hidden`, which names them as %(player)s."""
    target = _player(username)
    if not privacy.shows_games_to(target, request.auth.user):
        raise ApiRefusal(403, "forbidden", hidden % {"player": target.username})
    return target


def _profile(user: User, viewer: User) -> dict:
    out = {
        **shapes.player(user),
        "run_by": user.bot_owner.username if user.is_api_bot else None,
        "joined": user.date_joined,
        "rating": None,
        "statistics": None,
    }
    if privacy.shows_games_to(user, viewer):
        out["rating"] = archive.rating_of(user)
        totals = archive.statistics(user)
        out["statistics"] = {
            "played": totals.played,
            "playing": totals.playing,
            "wins": totals.wins,
            "average_score": totals.average_score,
            "timeouts": totals.timeouts,
            "resignations": totals.resignations,
        }
    return out
