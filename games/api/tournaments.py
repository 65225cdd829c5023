"""The tournaments' endpoints: list and read tournaments (a read token), join and withdraw (a
play token), through the same changes as the site's pages (games/tournaments/actions/) and
the same rate limit. A tournament's games are ordinary games: `GET /games/{id}` reads them, the
stream announces each as it starts."""

from datetime import datetime
from typing import Literal

from django.db.models import Count
from ninja import Field as F
from ninja import Query, Router, Schema

from games.play.rate_limits import SEAT_CHANGES
from games.tournaments import actions, reading
from games.tournaments.models import Tournament

from . import schemas, shapes
from .auth import PLAY, READ
from .errors import not_found
from .playing import REFUSALS as PLAY_REFUSALS
from .playing import Body, _limit
from .reading import REFUSALS, Page

router = Router(tags=["tournaments"])


class TournamentFilter(Page):
    status: Literal["open", "running", "finished", "cancelled"] | None = None


class TournamentSummary(Schema):
    id: int
    name: str
    format: Literal["swiss", "round_robin"]
    status: Literal["open", "running", "finished", "cancelled"]
    access: Literal["public", "invitation"]
    organiser: schemas.Player
    table_size: int = F(description="Players a table (2 to 5); some tables may have one fewer.")
    rounds: int | None = F(
        description="Swiss: the rounds. Round robin: the games each player plays (none: the "
        "fewest in which every pair can meet)."
    )
    section_size: int | None
    round: int = F(description="The last round made so far.")
    entrants: int
    min_players: int
    max_players: int
    starts_at: datetime
    started_at: datetime | None
    ended_at: datetime | None
    rated: bool
    time_per_move: float | None = F(description="Seconds a move.")


class StandingRow(Schema):
    place: int
    shared: bool
    player: schemas.Player
    section: str = F(description="A round robin's section letter; empty in a Swiss.")
    points: str = F(description="Tournament points, exactly: '5', '7/2'.")
    opponents_points: str = F(description="The first tie-break.")
    game_score: int = F(description="The second tie-break: the total of game scores.")
    games: int
    byes: int
    withdrawn: bool
    paired_no_more: bool


class TableOut(Schema):
    table: int
    game_id: int
    status: str
    players: list[schemas.Player]


class RoundOut(Schema):
    number: int
    started_at: datetime
    deadline: datetime | None
    tables: list[TableOut]
    byes: list[schemas.Player]


class TournamentOut(TournamentSummary):
    description: str
    entry_limits: dict[str, int | None] = F(
        description="min_rated_games, min_rating, max_rating, max_timeouts (in 90 days)."
    )
    place_points: dict[str, list[str]] = F(description="Points per place by table size.")
    registered: bool = F(description="Whether the caller is registered.")
    standings: list[StandingRow]
    rounds_made: list[RoundOut] = F(description="Newest first.")


class TournamentsPage(Schema):
    count: int
    items: list[TournamentSummary]


class Join(Body):
    invite_token: str | None = F(None, max_length=64)


def _summary(tournament: Tournament, entrants: int) -> dict:
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "format": tournament.format,
        "status": tournament.status,
        "access": tournament.access,
        "organiser": shapes.player(tournament.created_by),
        "table_size": tournament.table_size,
        "rounds": tournament.rounds,
        "section_size": tournament.section_size,
        "round": tournament.round,
        "entrants": entrants,
        "min_players": tournament.min_players,
        "max_players": tournament.max_players,
        "starts_at": tournament.starts_at,
        "started_at": tournament.started_at,
        "ended_at": tournament.ended_at,
        "rated": tournament.rated,
        "time_per_move": tournament.time_per_move.total_seconds()
        if tournament.time_per_move
        else None,
    }


def _read(tournament_id: int, viewer) -> dict:
    tournament = Tournament.objects.select_related("created_by").filter(pk=tournament_id).first()
    if tournament is None:
        raise not_found()
    read = reading.read(tournament)
    rounds = reading.rounds_of(tournament, read.games) if tournament.started_at else []
    points = tournament.points
    return {
        **_summary(tournament, len(read.entries)),
        "description": tournament.description,
        "entry_limits": {
            "min_rated_games": tournament.min_rated_games,
            "min_rating": tournament.min_rating,
            "max_rating": tournament.max_rating,
            "max_timeouts": tournament.max_timeouts,
        },
        "place_points": {
            str(size): [str(value) for value in points.row(size)] for size in range(2, 6)
        },
        "registered": read.row_of(viewer.pk) is not None,
        "standings": [
            {
                "place": row.standing.place,
                "shared": row.standing.shared,
                "player": shapes.player(row.user),
                "section": section.letter,
                "points": str(row.standing.points),
                "opponents_points": str(row.standing.opponents_points),
                "game_score": row.standing.game_score,
                "games": row.standing.games,
                "byes": row.standing.byes,
                "withdrawn": row.standing.withdrawn,
                "paired_no_more": row.paired_no_more,
            }
            for section in read.sections
            for row in section.rows
        ]
        if tournament.started_at
        else [],
        "rounds_made": [
            {
                "number": view.round.number,
                "started_at": view.round.started_at,
                "deadline": view.round.deadline,
                "tables": [
                    {
                        "table": table.number,
                        "game_id": table.game.pk,
                        "status": table.game.status,
                        "players": [shapes.player(seat.user) for seat in table.seats],
                    }
                    for table in view.tables
                ],
                "byes": [shapes.player(user) for user in view.byes],
            }
            for view in rounds
        ],
    }


@router.get("/tournaments", response={200: TournamentsPage, **REFUSALS}, auth=READ)
def tournaments(request, filters: Query[TournamentFilter]):
    """Public tournaments, newest start first, by status if asked."""
    listed = Tournament.objects.filter(access=Tournament.Access.PUBLIC)
    if filters.status:
        listed = listed.filter(status=filters.status)
    page = (
        listed.select_related("created_by")
        .annotate(entrants=Count("entries"))
        .order_by("-starts_at", "-pk")[filters.offset : filters.offset + filters.limit]
    )
    return {
        "count": listed.count(),
        "items": [_summary(tournament, tournament.entrants) for tournament in page],
    }


@router.get("/tournaments/{tournament_id}", response={200: TournamentOut, **REFUSALS}, auth=READ)
def tournament(request, tournament_id: int):
    """A tournament: its settings, the standings with their tie-breaks (once started), and each
    round's tables with their games."""
    return _read(tournament_id, request.auth.user)


@router.post(
    "/tournaments/{tournament_id}/join", response={200: TournamentOut, **PLAY_REFUSALS}, auth=PLAY
)
def join(request, tournament_id: int, body: Join):
    """Register for a tournament open for registration (by invitation: the invited, or with
    its link's token). Refusals: `closed`, `full`, `not_invited`, `not_eligible` (the reason
    in words), `already_registered`."""
    _limit(request, SEAT_CHANGES)
    _missing(tournament_id)
    actions.register(
        tournament_id=tournament_id, user=request.auth.user, invite_token=body.invite_token
    )
    return _read(tournament_id, request.auth.user)


@router.post(
    "/tournaments/{tournament_id}/withdraw",
    response={200: TournamentOut, **PLAY_REFUSALS},
    auth=PLAY,
)
def withdraw(request, tournament_id: int):
    """Withdraw: before the start the entry goes; after it, you are paired no more and your
    games keep counting (`not_registered`, `already_withdrawn`, `over`)."""
    _limit(request, SEAT_CHANGES)
    _missing(tournament_id)
    actions.withdraw(tournament_id=tournament_id, user=request.auth.user)
    return _read(tournament_id, request.auth.user)


def _missing(tournament_id: int) -> None:
    if not Tournament.objects.filter(pk=tournament_id).exists():
        raise not_found()
