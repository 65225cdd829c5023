"""What the stream (games/api/stream.py) reads: the caller's games, and for one game what happened
since the version the stream last sent of it, as the stream's lines.

Plain synchronous reads, each run by the stream through `database_sync_to_async`. The database
is the truth: a push only tells the stream which game to read again, so a lost or doubled push
costs nothing but a read, and a stream resumed from a version sends exactly the events after it.
"""

from dataclasses import dataclass, replace

from accounts import blocking
from accounts.models import AccessToken, User
from games.models import Event, Game, Invitation, Seat
from games.state_store import load_state, read_game, snapshot

from . import shapes

# Events read at once; a game further behind is read again from where the last read stopped.
CHUNK = 500
# Events recorded after a game's end, which the stream does not send: the post-game analysis
# (in the replay, GET /games/{id}/replay). The end line is the game's last word on the stream,
# live or resumed (issue 34: a client resuming from its version was sent the analysis, then a
# second end).
AFTER_THE_END = frozenset({"analysed"})


@dataclass(frozen=True)
class Followed:
    """A game the stream follows for a player seated at it."""

    sent: int  # the newest version whose events (or snapshot line) the stream has sent
    # The turn last announced as the player's move (shapes.turn; None: the game does not wait
    # for them): one `your_move` line a turn, not one for every tile they move or their draft.
    turn: int | None = None


@dataclass(frozen=True)
class Caught:
    """What a read of one game gave: the lines to send, how the game is followed from now on
    (None: no longer, it ended or the player has no seat at it), and whether there is more."""

    lines: list[dict]
    followed: Followed | None
    more: bool = False


@dataclass(frozen=True)
class Games:
    """The player's games now: the ones they sit at, waiting for players or in play; the
    tables waiting for players they are invited to (with who invited them)."""

    seated: frozenset[int]
    invited: dict[int, str]


def games_of(user_id: int) -> Games:
    live = (Game.Status.WAITING, Game.Status.PLAYING)
    seated = frozenset(
        Seat.objects.filter(user_id=user_id, game__status__in=live).values_list(
            "game_id", flat=True
        )
    )
    invited = (
        Invitation.objects.filter(user_id=user_id, game__status=Game.Status.WAITING)
        .exclude(game_id__in=seated)
        .order_by("game_id")
        .values_list("game_id", "invited_by__username")
    )
    return Games(seated, dict(invited))


def token_active(token_id: int) -> bool:
    """Whether the stream's token may still read (not revoked, its player not deactivated)."""
    return AccessToken.objects.filter(
        pk=token_id, revoked_at__isnull=True, user__is_active=True
    ).exists()


def versions(game_ids) -> dict[int, int]:
    """The version of each of these games now: one query, to notice a push that never came."""
    return dict(Game.objects.filter(pk__in=list(game_ids)).values_list("pk", "version"))


def look(game_id: int, user_id: int) -> Caught:
    """A game as it is now, in one `game` line, for a stream that opens without a version of
    it; not followed if it has ended meanwhile (or the player has no seat at it)."""
    try:
        game, seats = read_game(game_id)
    except Game.DoesNotExist:
        return Caught([], None)
    mine = _seat_of(seats, user_id)
    if mine is None:
        return Caught([], None)
    waits, turn = _waits(game, seats, mine)
    line = {
        "type": "game",
        "game": game.pk,
        "status": game.status,
        "version": game.version,
        "your_move": waits,
    }
    if game.is_over:
        return Caught([line], None)
    return Caught([line], Followed(game.version, turn if waits else None))


def catch_up(game_id: int, user_id: int, followed: Followed) -> Caught:
    """The lines of what happened to a game since `followed.sent`: each event (a `start` line
    after the start's), then `your_move` if the game now waits for the player on a turn not yet
    announced, or `end` if it is over (a stream resumed from a game's last version, its end
    already seen, says nothing more of it). Read in one snapshot, so the events and the state
    they lead to are of the same version."""
    with snapshot():
        try:
            game, seats = read_game(game_id)
        except Game.DoesNotExist:
            return Caught([], None)
        mine = _seat_of(seats, user_id)
        if mine is None:  # they left the table (or it was never theirs): nothing more of it
            return Caught([], None)
        after = min(followed.sent, game.version)
        rows = list(
            Event.objects.filter(
                game_id=game_id, number__gt=after, number__lte=game.version
            ).order_by("number")[:CHUNK]
        )
    names = {seat.number: seat.user.username for seat in seats}
    hide_seed = not game.is_over
    lines = []
    for row in rows:
        if row.kind in AFTER_THE_END:
            continue
        event = shapes.event(row, names, hide_seed=hide_seed)
        lines.append({"type": "event", "game": game_id, **event})
        if row.kind == "started":
            lines.append({"type": "start", "game": game_id, "version": row.number})
    if rows and rows[-1].number < game.version:
        return Caught(lines, replace(followed, sent=rows[-1].number), more=True)
    if game.is_over:  # its end, unless nothing of it happened since the version the client has
        if lines:
            lines.append(end_line(game, seats, version=lines[-1]["version"]))
        return Caught(lines, None)
    waits, turn = _waits(game, seats, mine)
    turn = turn if waits else None
    if waits and followed.turn != turn:
        lines.append({"type": "your_move", "game": game_id, "version": game.version})
    return Caught(lines, Followed(game.version, turn))


def end_line(game: Game, seats: list[Seat], version: int) -> dict:
    """The end of a game at `version`, its last event on the stream: its results by place (a
    table cancelled before it started has none)."""
    results = []
    if game.status == Game.Status.ENDED:
        ranked = sorted(seats, key=lambda seat: (seat.place is None, seat.place, seat.number))
        results = [
            {
                "seat": seat.number,
                "player": shapes.player(seat.user),
                "place": seat.place,
                "score": seat.score,
            }
            for seat in ranked
        ]
    return {
        "type": "end",
        "game": game.pk,
        "status": game.status,
        "version": version,
        "results": results,
    }


def _seat_of(seats: list[Seat], user_id: int) -> Seat | None:
    return next((seat for seat in seats if seat.user_id == user_id), None)


def _waits(game: Game, seats: list[Seat], mine: Seat) -> tuple[bool, int | None]:
    """Whether the game waits for this player's move (shapes.your_move; a seat handed to the
    server's stand-in does not wait for its player), and the turn it is at."""
    if not game.is_playing or mine.left:
        return False, None
    state = load_state(game, seats)
    return shapes.your_move(state, mine.number), shapes.turn(state)


def chat_line(user_id: int, event: dict) -> dict | None:
    """The stream's `chat` line of a ``game.chat`` push (games/live/pushes.py `chat_changed`)
    for a player of its game, or None if its author and the player are in a block (who never
    read each other: accounts/blocking.py)."""
    message = event["message"]
    if message["author_id"] != user_id and blocking.blocked_either_way(
        user_id, message["author_id"]
    ):
        return None
    author = (
        User.objects.filter(pk=message["author_id"])
        .only("id", "username", "bot_level", "bot_owner")
        .first()
    )
    if author is None:
        return None
    return {
        "type": "chat",
        "game": event["game"],
        "id": message["id"],
        "author": shapes.player(author),
        "text": message["text"],
        "at": message["created"],
        "deleted": message["deleted"],
    }
