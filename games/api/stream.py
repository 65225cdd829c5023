"""The stream, `GET /api/v1/stream`: a player's games as they change, newline-delimited JSON.

One long-lived HTTP response per client (as lichess's event stream), each line a JSON object with
a `type` (docs/api.md, "The stream"):

- `game`: a game of theirs as it is when the stream opens (a table they sit at, a game in play);
- `invitation`: they are invited to a table;
- `event`: each event of their games, with its version, in order (games/api/shapes.py `event`);
- `start`: a table they sit at started (after its `started` event);
- `your_move`: the game waits for their move, once a turn;
- `chat`: a message of the table talk of one of their games, as it is written (or deleted);
- `end`: a game ended (with its results) or its table was cancelled;
- an empty line every KEEPALIVE seconds when nothing else was sent.

Resuming: `?since=<game>:<version>,...` sends each listed game's events after that version
instead of its `game` line, then goes on live.

How it runs: an async view, served by daphne's event loop (microchip_site/asgi.py hands HTTP to
Django's ASGI handler), so an open stream holds no synchronous worker; nginx sends
`/api/v1/stream` to daphne unbuffered (docs/deploy.md). The stream takes a channel of its own on
the channel layer and joins its player's group and the group of each of their games, the groups
the site's pushes go to (games/live/pushes.py). A push only wakes it: it then reads the game's new
events from the database (games/api/game_events.py), so what it sends is what was committed, in
order, whatever pushes were lost or doubled. Every CHECK seconds it also reads the versions of
its games and the player's list of games (a push lost while the channel layer was paused, a
table joined without one), and whether the token still holds.

When the client goes away Django's ASGI handler cancels the response: the `finally` leaves the
groups and gives back the player's stream slot (at most STREAMS_PER_PLAYER at once, counted in
the cache, so every daphne process counts the same streams).
"""

import asyncio
import contextlib
import json
import logging
import uuid
from datetime import timedelta

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from ninja import Query, Router

from games.live import pushes
from games.play import quickplay

from . import game_events
from .auth import READ
from .errors import ApiRefusal, Refusal

logger = logging.getLogger(__name__)

router = Router(auth=READ)

MAX_LIFETIME = 3600  # seconds; then the stream ends and the client connects again
MAX_SINCE = 200  # games listed in `since`
# What `since` may be, as the schema says it: nothing, or <game>:<version> pairs (how many, a
# regular expression cannot say briefly: past MAX_SINCE games, 400 too_many_games).
SINCE_PATTERN = r"^$|^\d{1,18}:\d{1,10}(,\d{1,18}:\d{1,10})*$"
# Messages of the channel layer that mean a game (or the player's list of games) changed; the
# table talk's are sent as they are (`chat` lines); the others (rematch offers, queued drafts)
# are not the stream's business.
WAKING = frozenset({"game.changed", "game.lobby_changed", "user.notify"})
SLOT_TTL = 90  # seconds a slot outlives its stream's last check (a process that died)
# A seek made while a stream is open outlives the player's streams' last check by as much.
SEEK_HELD = timedelta(seconds=SLOT_TTL)
CONTENT_TYPE = "application/x-ndjson"


def keepalive_seconds() -> float:
    return settings.API_STREAM_KEEPALIVE


def check_seconds() -> float:
    return settings.API_STREAM_CHECK


def streams_per_player() -> int:
    return settings.API_STREAMS_PER_PLAYER


# --- the line types, for the OpenAPI schema ------------------------------------------------------


def _line(line_type: str, what: str, /, **properties) -> dict:
    return {
        "type": "object",
        "description": what,
        "required": ["type", "game", *[name for name in properties if name != "results"]],
        "properties": {
            "type": {"const": line_type},
            "game": {"type": "integer", "description": "The game's id."},
            **properties,
        },
    }


_VERSION = {"type": "integer", "description": "The game's version."}
LINE_SCHEMA = {
    "oneOf": [
        _line(
            "game",
            "A game of yours as the stream opens (unless resumed with `since`).",
            status={"type": "string", "enum": ["waiting", "playing", "ended", "cancelled"]},
            version=_VERSION,
            your_move={"type": "boolean"},
        ),
        _line(
            "invitation",
            "You are invited to a table waiting for players (POST /games/{id}/join joins it).",
            by={"type": "string", "description": "Who invited you."},
        ),
        _line(
            "event",
            "An event of one of your games, in order: as GET /games/{id}/events lists them.",
            version={"type": "integer", "description": "The game's version after this event."},
            kind={"type": "string"},
            seat={"type": ["integer", "null"]},
            player={"type": ["string", "null"]},
            cause={"type": "string"},
            action={"type": ["object", "null"]},
            data={"type": "object"},
            at={"type": "string", "format": "date-time"},
        ),
        _line("start", "A table you sit at started.", version=_VERSION),
        _line(
            "chat",
            "A message of a game's table talk, written or deleted (live only: after a "
            "reconnection, GET /games/{id}/chat?after= has those missed).",
            id={"type": "integer", "description": "The message's id."},
            author={
                "type": "object",
                "properties": {"username": {"type": "string"}, "bot": {"type": "boolean"}},
            },
            text={"type": "string"},
            at={"type": "string", "format": "date-time"},
            deleted={"type": "boolean", "description": "Taken out of the talk: forget it."},
        ),
        _line(
            "your_move",
            "The game waits for your move (once a turn; in the finishing phase, once).",
            version=_VERSION,
        ),
        _line(
            "end",
            "A game of yours ended (with its results by place), or its table was cancelled.",
            status={"type": "string", "enum": ["ended", "cancelled"]},
            version=_VERSION,
            results={
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "seat": {"type": "integer"},
                        "player": {
                            "type": "object",
                            "properties": {
                                "username": {"type": "string"},
                                "bot": {"type": "boolean"},
                            },
                        },
                        "place": {"type": ["integer", "null"]},
                        "score": {"type": ["integer", "null"]},
                    },
                },
            },
        ),
    ]
}
OPENAPI = {
    "responses": {
        200: {
            "description": (
                "Newline-delimited JSON, one object a line, for as long as the connection "
                "lasts (at most `timeout` seconds); an empty line now and then keeps it open."
            ),
            "content": {CONTENT_TYPE: {"schema": LINE_SCHEMA}},
        }
    }
}


@router.get(
    "/stream",
    response={400: Refusal, 401: Refusal, 403: Refusal, 422: Refusal, 429: Refusal},
    tags=["stream"],
    openapi_extra=OPENAPI,
)
async def stream(
    request,
    since: str = Query(
        "",
        max_length=MAX_SINCE * 30,
        pattern=SINCE_PATTERN,
        description="Resume: `<game>:<version>,...`, the last version you have of each game; "
        "the stream sends their events after it instead of a `game` line. At most 200 games, "
        "else 400 too_many_games.",
    ),
    timeout: int = Query(
        MAX_LIFETIME,
        ge=1,
        le=MAX_LIFETIME,
        description="End the stream after this many seconds (then connect again).",
    ),
):
    """Your games as they change, as newline-delimited JSON: game starts, each event with its
    version, "your move", game ends, invitations. Resumable with `since`."""
    resume = _parse_since(since)
    token = request.auth
    slot = await Slot.take(token.user_id)
    if slot is None:
        raise ApiRefusal(
            429,
            "too_many_streams",
            ngettext(
                "At most %(count)d stream at once: close one first.",
                "At most %(count)d streams at once: close one first.",
                streams_per_player(),
            )
            % {"count": streams_per_player()},
        )
    lines = Stream(token.user_id, token.pk, resume, timeout, slot).lines()
    response = StreamingHttpResponse(lines, content_type=CONTENT_TYPE)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each line on at once
    return response


def _parse_since(since: str) -> dict[int, int]:
    resume = {}
    for part in filter(None, (piece.strip() for piece in since.split(","))):
        game, colon, version = part.partition(":")
        if not (colon and game.isdigit() and version.isdigit()):
            raise ApiRefusal(
                422, "bad_request", _("since: write <game>:<version>,... with whole numbers.")
            )
        resume[int(game)] = int(version)
    if len(resume) > MAX_SINCE:  # well formed, past the limit
        raise ApiRefusal(
            400, "too_many_games", _("since: at most %(count)d games.") % {"count": MAX_SINCE}
        )
    return resume


class Slot:
    """One of a player's STREAMS_PER_PLAYER stream slots: a cache key per slot, taken with an
    atomic add, kept alive by each check, given back when the stream ends, and dropping out by
    itself SLOT_TTL seconds after a process that died stopped checking. A cache that cannot be
    reached limits nothing: a limit is a guard, never a reason to fail."""

    def __init__(self, key: str | None, mark: str):
        self.key, self.mark = key, mark

    @classmethod
    async def take(cls, user_id: int) -> "Slot | None":
        mark = uuid.uuid4().hex
        try:
            for key in cls._keys(user_id):
                if await cache.aadd(key, mark, SLOT_TTL):
                    return cls(key, mark)
        except Exception as error:
            logger.warning("api: cannot count the streams of %s: %s", user_id, error)
            return cls(None, mark)
        return None

    @staticmethod
    def _keys(user_id: int) -> list[str]:
        return [f"api:stream:{user_id}:{number}" for number in range(streams_per_player())]

    @classmethod
    def held(cls, user_id: int) -> bool:
        """Whether the player holds a stream open now (a cache out of reach says no)."""
        try:
            return bool(cache.get_many(cls._keys(user_id)))
        except Exception as error:
            logger.warning("api: cannot count the streams of %s: %s", user_id, error)
            return False

    @classmethod
    async def aheld(cls, user_id: int) -> bool:
        try:
            return bool(await cache.aget_many(cls._keys(user_id)))
        except Exception as error:
            logger.warning("api: cannot count the streams of %s: %s", user_id, error)
            return True  # not known: the seek stays, and runs out by itself if nobody renews it

    async def keep(self) -> None:
        if self.key is None:
            return
        with contextlib.suppress(Exception):
            if await cache.aget(self.key) == self.mark:
                await cache.atouch(self.key, SLOT_TTL)
            else:  # it ran out while this process was stalled: count it again if there is room
                await cache.aadd(self.key, self.mark, SLOT_TTL)

    async def release(self) -> None:
        if self.key is None:
            return
        with contextlib.suppress(Exception):
            if await cache.aget(self.key) == self.mark:
                await cache.adelete(self.key)


_read = database_sync_to_async  # each read in a thread, its connection given back after it


class Stream:
    """One open stream: its channel, the games it follows, and the lines it sends."""

    def __init__(self, user_id: int, token_id: int, resume: dict[int, int], lifetime, slot):
        self.user_id, self.token_id = user_id, token_id
        self.resume, self.lifetime, self.slot = resume, lifetime, slot
        self.followed: dict[int, game_events.Followed] = {}
        self.invited: set[int] = set()  # tables the player is invited to, not seated at
        self.groups: set[str] = set()
        self.layer = None
        self.channel = ""

    async def lines(self):
        """The response's content: chunks of lines, until the lifetime ends, the token is
        revoked or the client goes away (then Django cancels it here, and `finally` cleans up)."""
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue = asyncio.Queue()
        receiver = None
        try:
            # Nothing, at once: the server sends the status and the headers with a response's
            # first write, and a player with nothing to hear would wait for them until the first
            # keep-alive line, past most clients' time-outs (issue 34).
            yield ""
            self.layer = get_channel_layer()
            self.channel = await self.layer.new_channel()
            receiver = asyncio.create_task(self._receive(inbox))
            await self._join(pushes.user_group(self.user_id))
            first = await self._open()
            if first:
                yield _chunk(first)
            now = loop.time()
            ends_at = now + self.lifetime
            last_sent = next_check = now
            next_check += check_seconds()
            while True:
                now = loop.time()
                if now >= ends_at:
                    return
                if now >= next_check:
                    next_check = now + check_seconds()
                    if not await _read(game_events.token_active)(self.token_id):
                        return
                    await self.slot.keep()
                    await _read(quickplay.keep_held)(user_id=self.user_id, held_for=SEEK_HELD)
                    out = await self._check()
                elif now >= last_sent + keepalive_seconds():
                    last_sent = now
                    yield "\n"
                    continue
                else:
                    wait = min(ends_at, next_check, last_sent + keepalive_seconds()) - now
                    try:
                        message = await asyncio.wait_for(inbox.get(), max(wait, 0))
                    except TimeoutError:
                        continue
                    if message is None:  # the channel layer failed: the client reconnects
                        return
                    games, said = _drain(message, inbox)
                    out = await self._woken(games) + await self._talk(said)
                if out:
                    last_sent = loop.time()
                    yield _chunk(out)
        finally:
            await self._close(receiver)

    # --- the channel layer ----------------------------------------------------------------------

    async def _receive(self, inbox: asyncio.Queue) -> None:
        """Keep receiving from the stream's channel into `inbox`. One receive for the stream's
        whole life: cancelling the Redis pub/sub layer's receive also drops the channel."""
        try:
            while True:
                inbox.put_nowait(await self.layer.receive(self.channel))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            logger.warning("api: the stream's channel failed: %r", error)
            inbox.put_nowait(None)

    async def _join(self, group: str) -> None:
        if group not in self.groups:
            self.groups.add(group)
            await self.layer.group_add(group, self.channel)

    async def _leave(self, group: str) -> None:
        if group in self.groups:
            self.groups.discard(group)
            await self.layer.group_discard(group, self.channel)

    async def _close(self, receiver) -> None:
        if receiver is not None:
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await receiver
        for group in list(self.groups):
            with contextlib.suppress(Exception):
                await self.layer.group_discard(group, self.channel)
        self.groups.clear()
        await self.slot.release()
        # The player's last stream closed: a seek it held waits for nobody any more.
        with contextlib.suppress(Exception):
            if not await Slot.aheld(self.user_id):
                await _read(quickplay.cancel_seek)(user=self.user_id, held_only=True)

    # --- what to send ---------------------------------------------------------------------------

    async def _open(self) -> list[dict]:
        """The first lines: each resumed game's events since its version, a `game` line for each
        other game of the player's, an `invitation` line for each table they are invited to.
        The groups are joined before the reads, so a change made meanwhile is read, or wakes
        the stream, or both (reading twice sends nothing twice)."""
        games = await _read(game_events.games_of)(self.user_id)
        out = []
        for game_id, version in self.resume.items():
            await self._join(pushes.game_group(game_id))
            out += await self._catch_up(game_id, game_events.Followed(version))
        for game_id in sorted(games.seated - set(self.resume)):
            await self._join(pushes.game_group(game_id))
            caught = await _read(game_events.look)(game_id, self.user_id)
            out += caught.lines
            await self._follow(game_id, caught)
        out += await self._invitations(games)
        return out

    async def _woken(self, game_ids: set[int | None]) -> list[dict]:
        """A push for these games (None: the player's own group, whose list of games may have
        changed): read what changed."""
        out = []
        if None in game_ids or game_ids & self.invited:
            out += await self._new_games(await _read(game_events.games_of)(self.user_id))
        for game_id in sorted(game_id for game_id in game_ids if game_id in self.followed):
            out += await self._catch_up(game_id, self.followed[game_id])
        return out

    async def _talk(self, said: list[dict]) -> list[dict]:
        """A `chat` line for each message of the table talk of a game the player sits at,
        written or deleted, unless its author and the player are in a block."""
        out = []
        for event in said:
            if event.get("game") in self.followed:
                line = await _read(game_events.chat_line)(self.user_id, event)
                if line is not None:
                    out.append(line)
        return out

    async def _check(self) -> list[dict]:
        """The periodic check: any game whose version moved past what was sent (its push was
        lost), and games the player sat down at without a push to their group."""
        now = await _read(game_events.versions)(list(self.followed))
        out = []
        for game_id, version in sorted(now.items()):
            followed = self.followed.get(game_id)
            if followed is not None and version > followed.sent:
                out += await self._catch_up(game_id, followed)
        out += await self._new_games(await _read(game_events.games_of)(self.user_id))
        return out

    async def _new_games(self, games: game_events.Games) -> list[dict]:
        """Games the player now sits at that the stream did not follow (they joined or opened a
        table, or were seated by quick play): sent from their first event, so the stream says
        everything of them, the start included."""
        out = []
        for game_id in sorted(games.seated - set(self.followed)):
            await self._join(pushes.game_group(game_id))
            self.invited.discard(game_id)
            out += await self._catch_up(game_id, game_events.Followed(0))
        out += await self._invitations(games)
        return out

    async def _invitations(self, games: game_events.Games) -> list[dict]:
        """An `invitation` line for each new invitation; the tables of invitations that went
        (declined, cancelled, started without them) are left."""
        out = []
        for game_id, by in games.invited.items():
            if game_id not in self.invited and game_id not in self.followed:
                self.invited.add(game_id)
                # The table's group too: the player's own join wakes the stream at once.
                await self._join(pushes.game_group(game_id))
                out.append({"type": "invitation", "game": game_id, "by": by})
        for game_id in sorted(self.invited - set(games.invited)):
            self.invited.discard(game_id)
            if game_id not in self.followed:
                await self._leave(pushes.game_group(game_id))
        return out

    async def _catch_up(self, game_id: int, followed: game_events.Followed) -> list[dict]:
        out = []
        while True:
            caught = await _read(game_events.catch_up)(game_id, self.user_id, followed)
            out += caught.lines
            if not caught.more:
                break
            followed = caught.followed
        await self._follow(game_id, caught)
        return out

    async def _follow(self, game_id: int, caught: game_events.Caught) -> None:
        """Follow the game from where `caught` left it, or no longer (it is over, or the player
        has no seat at it): then its group is left."""
        if caught.followed is not None:
            self.followed[game_id] = caught.followed
            return
        self.followed.pop(game_id, None)
        if game_id not in self.invited:
            await self._leave(pushes.game_group(game_id))


def _drain(first: dict, inbox: asyncio.Queue) -> tuple[set[int | None], list[dict]]:
    """The games that this message and every one already waiting behind it are about (None:
    the player's own group): a burst of pushes is read once; and the table talk's messages
    among them, in order."""
    games, said = set(), []
    message = first
    while True:
        if message is None:  # the channel failed: put it back for the loop to end on
            inbox.put_nowait(None)
            break
        if message.get("type") == "game.chat":
            said.append(message)
        elif message.get("type") in WAKING:
            game = message.get("game")
            if message["type"] == "user.notify":
                games.add(None)
            if isinstance(game, int):
                games.add(game)
        try:
            message = inbox.get_nowait()
        except asyncio.QueueEmpty:
            break
    return games, said


def _chunk(lines: list[dict]) -> str:
    return "".join(json.dumps(line, cls=DjangoJSONEncoder) + "\n" for line in lines)
