"""The play endpoints: every change the site's pages make, through the same actions
(games/play/actions/) and the same rate limits, answered in JSON. A play token is needed."""

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field as F
from ninja import Router, Schema, Status
from pydantic import BeforeValidator, ConfigDict, Field

from games import access, rules
from games.models import Game, QuickPlaySeek
from games.play import actions, quickplay, rematches
from games.play.errors import ActionRefused, StaleVersion
from games.play.forms import (
    FISCHER_BANK_CHOICES,
    FISCHER_CAP_CHOICES,
    FISCHER_INCREMENT_CHOICES,
    TIME_PER_MOVE,
    CreateGameForm,
    QuickPlayForm,
)
from games.play.rate_limits import (
    ACTIONS,
    GAME_CREATION,
    INVITATIONS,
    SEAT_CHANGES,
    Limit,
    refusal_words,
    seconds_to_wait,
)
from games.state_store import read_game

from . import schemas, shapes
from .auth import PLAY
from .errors import ApiRefusal, Refusal, not_found
from .stream import SEEK_HELD, Slot

router = Router(auth=PLAY)
REFUSALS = {
    400: Refusal,
    401: Refusal,
    403: Refusal,
    404: Refusal,
    409: Refusal,
    422: Refusal,
    429: Refusal,
}
TimePerMove = Literal[tuple(TIME_PER_MOVE)]  # "1h", "1d"... as the site's form offers them


class Body(Schema):
    """A request body: JSON types as the schema says them (no "1" for 1, no 0 for false; an
    integer may be written 2.0, as JSON Schema's integer is any number without a fraction)."""

    model_config = ConfigDict(strict=True)


def _whole_number(value):
    """JSON Schema's integer: 2 or 2.0, never 2.5, "2" or true (strict mode refuses 2.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole_number)]
# Constraints before the validator: after it, pydantic leaves them out of the JSON schema.
TileId = Annotated[int, Field(ge=0, le=rules.tiles.TILE_COUNT - 1), BeforeValidator(_whole_number)]


class Move(Body):
    version: WholeNumber | None = F(
        description="The game's version the client acted on; a move made against a state that "
        "has since changed in a way that matters is refused as stale. Null: act on whatever "
        "the game is now (not recommended)."
    )
    action: dict[str, Any] = F(
        description='A rules action in its JSON form, e.g. {"type": "draft", "tile_id": 7}, '
        '{"type": "place", "tile_id": 7, "space": 12, "rotation": 1}, {"type": "confirm_draft"}.',
        examples=[{"type": "draft", "tile_id": 7}],
    )


class Queue(Body):
    version: WholeNumber | None = None
    tiles: list[TileId] = F(
        max_length=rules.ahead.MAX_QUEUED,
        description="Tile ids of your next draw column, best first; [] clears.",
    )
    confirm: bool = F(False, description="Confirm the queued draft at once, too.")


class Expel(Body):
    seat: WholeNumber = F(ge=0, le=4)


class Invite(Body):
    username: str = F(max_length=150)


BOTS = (
    "Computer players to seat at once: easy_bots, strong_bots and expert_bots together leave a "
    "seat for you (at most player_count - 1), else the table refuses it (400 bots)."
)


class NewGame(Body):
    # A field the table does not know is refused (422), not ignored: "grandmaster_bots": 1 or
    # a misspelt "expert_bot" would otherwise open a table that waits for players who never come.
    model_config = ConfigDict(strict=True, extra="forbid")

    name: str = F("", max_length=60)
    player_count: WholeNumber = F(2, ge=2, le=5)
    clock: Literal["per_move", "fischer"] = "per_move"
    time_per_move: TimePerMove = "1d"
    fischer_bank: Literal[tuple(FISCHER_BANK_CHOICES)] | None = F(
        None, description="With clock fischer: the starting bank (at most fischer_cap)."
    )
    fischer_increment: Literal[tuple(FISCHER_INCREMENT_CHOICES)] | None = F(
        None, description="With clock fischer: the time added by each move (at most fischer_cap)."
    )
    fischer_cap: Literal[tuple(FISCHER_CAP_CHOICES)] | None = F(
        None,
        description="With clock fischer: the most a bank holds, at least the starting bank and "
        "the increment, else the table refuses it (400 fischer_cap).",
    )
    weekends_off: bool = False
    rated: bool = True
    strict_finish: bool = False
    access: Literal["open", "invitation"] = "open"
    private: bool | None = None
    invitees: list[Annotated[str, Field(min_length=1, max_length=150)]] = F([], max_length=4)
    easy_bots: WholeNumber = F(0, ge=0, le=4, description=BOTS)
    strong_bots: WholeNumber = F(0, ge=0, le=4, description=BOTS)
    expert_bots: WholeNumber = F(0, ge=0, le=4, description=BOTS)


class Seek(Body):
    player_count: WholeNumber = F(2, ge=2, le=5)
    time_per_move: TimePerMove = "1d"
    rated: bool = True


class SeekOut(Schema):
    player_count: int
    time_per_move: str = F(description="As the seek was made: 1h, 12h, 1d...")
    rated: bool
    since: datetime
    held_by_stream: bool = F(
        description="Made while you held a stream open: it lasts while you hold one (your last "
        "stream closing cancels it)."
    )


class Seeking(Schema):
    seek: SeekOut | None = F(description="Your seek, or null: you are not looking for a game.")


class Sought(Schema):
    game: schemas.GameSummary | None = F(description="The game, if one was made at once.")
    waiting: bool = F(description="Still looking: the stream will say when a game starts.")


@router.post("/games/{game_id}/actions", response={200: schemas.GameOut, **REFUSALS}, tags=["play"])
def act(request, game_id: int, move: Move):
    """Make a move: draft, confirm_draft, undo_draft, place, rotate, move, swap, return, clear,
    undo, redo, finish. Answers the game as the move left it."""
    _visible_then_limit(request, game_id, ACTIONS)
    action = {key: _whole_number(value) for key, value in move.action.items()}
    try:
        played = actions.play(
            game_id=game_id, user=request.auth.user, action=action, seen_version=move.version
        )
    except StaleVersion as stale:
        raise _stale(game_id, stale) from None
    except ActionRefused as refusal:
        raise _missing_or(refusal, game_id) from None
    return shapes.full(played.game, played.seats, request.auth.user)


@router.post("/games/{game_id}/queue", response={200: schemas.GameOut, **REFUSALS}, tags=["play"])
def queue(request, game_id: int, queued: Queue):
    """Queue your next draft while others play (or clear it with no tiles)."""
    _visible_then_limit(request, game_id, ACTIONS)
    try:
        actions.queue_drafts(
            game_id=game_id,
            user=request.auth.user,
            tiles=queued.tiles,
            confirm=queued.confirm,
            seen_version=queued.version,
        )
    except StaleVersion as stale:
        raise _stale(game_id, stale) from None
    except ActionRefused as refusal:
        raise _missing_or(refusal, game_id) from None
    return _game(game_id, request)


@router.post("/games/{game_id}/resign", response={200: schemas.GameOut, **REFUSALS}, tags=["play"])
def resign(request, game_id: int):
    """Resign: the server plays your seat out, and you are ranked after those still playing."""
    _visible_then_limit(request, game_id, ACTIONS)
    _run(game_id, lambda: actions.resign(game_id=game_id, user=request.auth.user))
    return _game(game_id, request)


@router.post("/games/{game_id}/expel", response={200: schemas.GameOut, **REFUSALS}, tags=["play"])
def expel(request, game_id: int, vote: Expel):
    """Vote to hand a seat that keeps timing out to the server."""
    _visible_then_limit(request, game_id, ACTIONS)
    _run(
        game_id,
        lambda: actions.vote_to_expel(
            game_id=game_id, user=request.auth.user, seat_number=vote.seat
        ),
    )
    return _game(game_id, request)


@router.post("/games", response={201: schemas.GameOut, **REFUSALS}, tags=["tables"])
def create(request, new: NewGame):
    """Open a table with you in the first seat: invite players by name, seat computer players."""
    _limit(request, GAME_CREATION, count=False)
    data = new.model_dump()
    data["invitees"] = ", ".join(new.invitees)
    data["private"] = {None: "", True: "yes", False: "no"}[new.private]
    data = {key: value for key, value in data.items() if value is not None}
    data["rated"] = "on" if new.rated else ""
    data["weekends_off"] = "on" if new.weekends_off else ""
    data["strict_finish"] = "on" if new.strict_finish else ""
    data["spectators_read_chat"] = "on"
    form = CreateGameForm(data)
    if not form.is_valid():
        raise _refused_by(form)
    game = _run(None, lambda: actions.create_game(creator=request.auth.user, **form.cleaned_data))
    _limit(request, GAME_CREATION)  # counted once made, as the site's form counts
    return Status(201, _game(game.pk, request))


@router.post("/games/{game_id}/join", response={200: schemas.GameOut, **REFUSALS}, tags=["tables"])
def join(request, game_id: int):
    """Take a seat at an open table, or accept an invitation to one."""
    _visible_then_limit(request, game_id, SEAT_CHANGES)
    _run(game_id, lambda: actions.join_game(game_id=game_id, user=request.auth.user))
    return _game(game_id, request)


@router.post("/games/{game_id}/leave", response={200: schemas.GameOut, **REFUSALS}, tags=["tables"])
def leave(request, game_id: int):
    """Leave a table that has not started."""
    _visible_then_limit(request, game_id, SEAT_CHANGES)
    _run(game_id, lambda: actions.leave_game(game_id=game_id, user=request.auth.user))
    return _game(game_id, request)


@router.post("/games/{game_id}/start", response={200: schemas.GameOut, **REFUSALS}, tags=["tables"])
def start(request, game_id: int):
    """Start your table with the players seated so far (its creator only)."""
    _visible_then_limit(request, game_id, SEAT_CHANGES)
    _run(game_id, lambda: actions.start_game(game_id=game_id, user=request.auth.user))
    return _game(game_id, request)


@router.post(
    "/games/{game_id}/cancel", response={200: schemas.GameOut, **REFUSALS}, tags=["tables"]
)
def cancel(request, game_id: int):
    """Cancel your table before it starts (its creator only)."""
    _visible_then_limit(request, game_id, SEAT_CHANGES)
    _run(game_id, lambda: actions.cancel_game(game_id=game_id, user=request.auth.user))
    return _game(game_id, request)


@router.post("/games/{game_id}/decline", response={204: None, **REFUSALS}, tags=["tables"])
def decline(request, game_id: int):
    """Decline an invitation."""
    _visible_then_limit(request, game_id, SEAT_CHANGES)
    _run(game_id, lambda: actions.decline_invitation(game_id=game_id, user=request.auth.user))
    return Status(204, None)


@router.post(
    "/games/{game_id}/invite", response={200: schemas.GameOut, **REFUSALS}, tags=["tables"]
)
def invite(request, game_id: int, invited: Invite):
    """Invite a player by name to your table."""
    _visible_then_limit(request, game_id, INVITATIONS)
    _run(
        game_id,
        lambda: actions.invite_player(
            game_id=game_id, inviter=request.auth.user, username=invited.username
        ),
    )
    return _game(game_id, request)


@router.post(
    "/games/{game_id}/rematch", response={200: schemas.GameOut, **REFUSALS}, tags=["tables"]
)
def rematch(request, game_id: int):
    """Offer (or take up) a rematch of an ended game: a table with the same players."""
    _visible_then_limit(request, game_id, GAME_CREATION)
    game = _run(game_id, lambda: rematches.offer_rematch(game_id=game_id, user=request.auth.user))
    return _game(game.pk, request)


@router.get("/seek", response={200: Seeking, **REFUSALS}, tags=["tables"])
def my_seek(request):
    """Your quick-play seek, if you are looking for a game."""
    found = QuickPlaySeek.objects.filter(user=request.auth.user).first()
    if found is None:
        return {"seek": None}
    names = {duration: key for key, duration in TIME_PER_MOVE.items()}
    return {
        "seek": {
            "player_count": found.player_count,
            "time_per_move": names.get(found.time_per_move, str(found.time_per_move)),
            "rated": found.rated,
            "since": found.created_at,
            "held_by_stream": found.held_until is not None,
        }
    }


@router.post("/seek", response={200: Sought, **REFUSALS}, tags=["tables"])
def seek(request, wanted: Seek):
    """Quick play: be paired with players of a rating close to yours. Answers the game if one
    was made at once; else keep the stream open to hear when it starts. Made while you hold a
    stream open, the seek lasts while you hold one: a program that goes away is not paired."""
    form = QuickPlayForm(
        {"quick-" + key: value for key, value in wanted.model_dump().items() if key != "rated"}
        | ({"quick-rated": "on"} if wanted.rated else {}),
        prefix="quick",
    )
    if not form.is_valid():
        raise _refused_by(form)
    _limit(request, SEAT_CHANGES)  # counted once valid: what was really asked for
    held = SEEK_HELD if Slot.held(request.auth.user.pk) else None
    made = _run(
        None, lambda: quickplay.seek(user=request.auth.user, held_for=held, **form.cleaned_data)
    )
    if made is None:
        return {"game": None, "waiting": True}
    game, seats = read_game(made.pk)
    return {"game": shapes.summary(game, seats, request.auth.user), "waiting": False}


@router.delete("/seek", response={204: None, **REFUSALS}, tags=["tables"])
def stop_seeking(request):
    """Stop looking for a quick-play game."""
    quickplay.cancel_seek(user=request.auth.user)
    return Status(204, None)


# --- helpers -----------------------------------------------------------------------------------


def _visible_then_limit(request, game_id: int, limit: Limit) -> None:
    """A game the caller may not see is not found, exactly as a missing one, before anything
    else (issue 34); a request that gets that far counts against the site's own rate limit."""
    if not access.may_see_game(game_id, request.auth.user):
        raise not_found()
    _limit(request, limit)


def _limit(request, limit: Limit, *, count: bool = True) -> None:
    """The site's own rate limit for this kind of request, counted for the same player."""
    wait = seconds_to_wait(request, limit, count=count)
    if wait is not None:
        raise ApiRefusal(429, "rate_limited", refusal_words(limit, wait), retry_after=wait)


def _run(game_id: int | None, change):
    try:
        return change()
    except ActionRefused as refusal:
        raise _missing_or(refusal, game_id) from None


def _missing_or(refusal: ActionRefused, game_id: int | None) -> Exception:
    """A game that does not exist is a 404, whatever the action said about it."""
    if game_id is not None and not Game.objects.filter(pk=game_id).exists():
        return not_found()
    return refusal


def _stale(game_id: int, stale: StaleVersion) -> ApiRefusal:
    version = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
    return ApiRefusal(
        409, "stale", stale.message.replace("your page was drawn", "that version"), version=version
    )


def _game(game_id: int, request) -> dict:
    try:
        game, seats = read_game(game_id)
    except Game.DoesNotExist:
        raise not_found() from None
    return shapes.full(game, seats, request.auth.user)


def _refused_by(form) -> ApiRefusal:
    """A well-formed body (the schema checked every field) that the site's form refuses: what
    the schema cannot say, the fields taken together (too many computer players, a Fischer
    clock's cap below its bank). 400, with the form's code for it."""
    codes = [error.code for errors in form.errors.as_data().values() for error in errors]
    code = next((code for code in codes if code in FORM_CODES), "bad_request")
    return ApiRefusal(400, code, _form_errors(form))


# The codes of the site's forms' refusals that the API passes on.
FORM_CODES = frozenset({"bots", "fischer_cap"})


def _form_errors(form) -> str:
    return "; ".join(
        f"{field}: {' '.join(errors)}" if field != "__all__" else " ".join(errors)
        for field, errors in form.errors.items()
    )
