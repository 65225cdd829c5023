"""What the API answers, as typed schemas: they make its OpenAPI schema, and every answer is
checked against them on the way out."""

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema


class Player(Schema):
    username: str
    bot: bool = Field(description="A computer player or a bot account: not a person at the keys.")


class RatingOut(Schema):
    display: int = Field(description="The rating shown on the site (mu - 3 sigma, scaled).")
    mu: float
    sigma: float
    games: int = Field(description="Rated games played.")


class Statistics(Schema):
    played: int
    playing: int
    wins: int
    average_score: float | None
    timeouts: int
    resignations: int


class Profile(Player):
    run_by: str | None = Field(None, description="A bot account's owner, who runs its program.")
    joined: datetime
    rating: RatingOut | None = Field(None, description="Hidden when the player shows it to no one.")
    statistics: Statistics | None = None


class Me(Profile):
    time_zone: str


class Clock(Schema):
    seconds_left: int
    running: bool
    deadline: datetime | None


class SeatOut(Schema):
    number: int
    player: Player
    tray: list[int] = Field(description="Tile ids in the seat's tray.")
    board: list[list[int] | None] = Field(
        description="The 25 spaces, row by row: null, or [tile id, rotation in quarter turns]."
    )
    colours: list[str] = Field(description="The colour of each of the 25 spaces.")
    score: int = Field(description="The board's score now (chip value - 2 x tiles not in it).")
    finished: bool
    left: str = Field(description="Empty while playing; else resigned, timed_out, abandoned...")
    place: int | None = Field(None, description="Once the game has ended.")
    clock: Clock | None = None


class PendingDraft(Schema):
    seat: int
    tile_id: int
    column: int
    index: int


class GameSummary(Schema):
    id: int
    name: str
    status: Literal["waiting", "playing", "ended", "cancelled"]
    version: int
    player_count: int
    players: list[Player]
    rated: bool
    time_control: str
    created_at: datetime
    started_at: datetime | None
    ended_at: datetime | None
    your_seat: int | None = Field(None, description="The caller's seat number, if they play.")
    your_move: bool = False


class GameOut(GameSummary):
    phase: str = Field(description="drafting, finishing or ended ('' while waiting).")
    current_seat: int | None
    draw_column: int | None = Field(description="The pool column drafted from now.")
    pool: list[list[int]] = Field(description="The pool's columns of tile ids, top first.")
    removed: list[int] = Field(description="Tiles out of the game.")
    pending_draft: PendingDraft | None
    drafts: int
    deadline: datetime | None
    seats: list[SeatOut]
    can_arrange: bool = Field(
        False, description="The caller may place, move, rotate, swap and return tiles now."
    )
    rules_state: dict[str, Any] | None = Field(
        None,
        description="The same state in the rules package's JSON form (games/rules/state.py "
        "GameState.to_json, loaded by GameState.from_json): what a client built on the rules "
        "package plays from. While the game is played its seed reads 0, and the undo and redo "
        "steps are the caller's alone.",
    )
    legal_actions: list[dict[str, Any]] = Field(
        description="The caller's legal actions now, in their JSON form. Arranging actions "
        "(place, move...) are listed only with ?arranging=true: they can be hundreds. A place or "
        "a move is listed only where the tile may stay (its colour, fitting its neighbours), as "
        "the game page highlights it; the server's own actions (the forced take) never are."
    )


class EventOut(Schema):
    version: int = Field(description="The game's version after this event.")
    kind: str
    seat: int | None
    player: str | None
    cause: str
    action: dict[str, Any] | None = Field(description="The rules action, in its JSON form.")
    data: dict[str, Any]
    at: datetime


class SeatAnalysis(Schema):
    seat: int
    player: Player
    score: int | None
    place: int | None
    best_score: int | None = Field(description="The best score its final tiles could make.")
    best_board: list[list[int] | None] | None
    best_optimal: bool | None = Field(description="Whether the solver proved it the best.")


class ReplayOut(Schema):
    game: GameSummary
    start: dict[str, Any] = Field(
        description=(
            "The deal: players, seed, first seat, strict finish and the pool's layout "
            '("standard", or "short" for a guided first game): rebuild with '
            "games.rules.Replay.from_start."
        )
    )
    events: list[EventOut]
    analysis: list[SeatAnalysis] = Field(description="Empty until the analysis has run.")


class RatingStep(Schema):
    game: int
    at: datetime = Field(description="When the game ended.")
    place: int
    display_before: int
    display: int
    mu: float
    sigma: float
    games: int = Field(description="Rated games played, this one included.")


class LeaderboardRow(Schema):
    rank: int
    player: Player
    rating: RatingOut


class Tile(Schema):
    id: int
    kind: str
    colour: str
    value: int
    paths: list[int] = Field(description="Path mask at rotations 0-3 (bits: N=1, E=2, S=4, W=8).")
