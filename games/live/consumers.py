"""The websocket of every open page: live game updates, presence, the player's own notices.

One connection per page (games/live/routing.py). ``ws/games/<id>/?v=<version>`` from a game page
joins the game's group and, for a signed-in user, the user's own group; ``ws/live/`` from any
other page of a signed-in user joins their own group only. The consumer never changes a game: it
reads and draws (games/drawing/updates.py), and sends what its own viewer should see.

What it says to the browser and hears from it, and its close codes: games/live/__init__.py.
"""

import asyncio
import contextlib
import functools
import json
import logging
import time
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.urls import reverse
from django.utils import translation
from redis.exceptions import RedisError

from accounts import blocking
from games import presence, seen, state_store
from games.access import socket_access
from games.drawing import badge, cache, updates
from games.drawing.cache.looks import STATUS, page_looks
from games.live import layer_watch, push_drawing, socket_keeper, sockets
from games.live.changes import game_group, page_id, user_group

logger = logging.getLogger(__name__)

MAX_MESSAGE = 2048  # characters; a page's looks (five seats) take about 1,500
MAX_VERSION = 2**31 - 1
# A client may send a burst of this many messages, then one per REFILL seconds: each counted as
# it arrives, whatever the socket is busy with.
BURST, REFILL = 20, 0.5
# Messages that came and were not handled yet: a page sends one or two at a time (a heartbeat,
# a sync, its looks). A socket whose messages come faster than it can answer them (each within
# the allowance, a slow database) would pile them up in memory: past a whole burst waiting, it
# is closed as a flood.
MAX_BACKLOG = BURST
# At most one whole-game redraw per socket in this many seconds: a page that asks again sooner
# (a gap, a wake-up, a stale heartbeat) gets one redraw when the interval ends, however many
# times it asked meanwhile.
RESYNC_INTERVAL = 3.0
# A push that comes before the version just before it (two processes made the two versions, and
# the later one's push left first: each draws its players' pushes before sending them) waits
# this long for the one it follows, at most this many at once, before the page is redrawn whole.
EARLY_WAIT = 1.0
MOST_EARLY = 8
# A heartbeat refreshes the socket's count and its player's presence at most this often (both
# last a minute; a page beats every 25 s): the heartbeats between cost nothing.
BEAT_KEPT = 10.0

NOT_SIGNED_IN, NO_SUCH_GAME, TOO_MANY = 4401, 4404, 4408
LAYER_DOWN = 4503  # try again later (a server may not send 1011 itself)

# Releasing an ended consumer's channel (LiveConsumer._release_channel): how long its last
# receive waits, and for how many messages still on their way.
RELEASE_WAIT = 0.2
RELEASE_TRIES = 20
# What a send raises once the browser has closed the socket, before the connection is gone: the
# ASGI spec asks servers for an OSError; daphne raises autobahn's Disconnected instead.
BROWSER_GONE = (OSError, Disconnected)


def language_of(scope, user) -> str:
    """The language the socket's page was drawn in, as a page request would choose it: the
    player's own, else the language cookie, else the browser's Accept-Language."""
    if getattr(user, "is_authenticated", False) and user.language:
        return user.language
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    for name, value in scope.get("headers") or ():
        if name == b"accept-language":
            request.META["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin-1")
    return translation.get_language_from_request(request)


def _version(value) -> int | None:
    """Return a valid version number, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 10:
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_VERSION:
        return value
    return None


def _touched(event: dict) -> set[int]:
    """The seats a ``game.changed`` event redraws, boards or heads alone."""
    return {*event["seats"], *event.get("heads", ())}


async def _refuse_for_now(receive, send) -> None:
    """Answer the browser's handshake with "come back later", in ASGI's own words."""
    if (await receive())["type"] == "websocket.connect":
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": LAYER_DOWN})


class LiveConsumer(AsyncWebsocketConsumer):
    async def __call__(self, scope, receive, send):
        # The browser's messages are taken in as they arrive, counted and queued here
        # (`_take_in`), and the consumer reads them from that queue: a socket busy drawing
        # still counts what comes meanwhile, and never holds more than MAX_BACKLOG of them.
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.tokens, self.tokens_at = float(BURST), time.monotonic()
        self.flooded = False
        taking_in = asyncio.ensure_future(self._take_in(receive))
        # The consumer listens to the browser and to the channel layer at once; when Redis goes
        # away under an open socket (or right after a refused connect), the layer's receive
        # raises and would end the consumer with a traceback logged as an error and a 1011.
        # A lost channel layer is an outage to report, not a bug: the page is told to come
        # back later.
        try:
            await super().__call__(scope, self.inbox.get, send)
            await self._release_channel()
        except (RedisError, OSError) as error:
            logger.warning("live: lost the channel layer (%s); closing the socket", error)
            with contextlib.suppress(Exception):  # the browser may have gone already
                if hasattr(self, "user"):
                    await self.close(code=LAYER_DOWN)
                else:  # the layer failed to give this consumer its channel: not connected yet
                    await _refuse_for_now(self.inbox.get, send)
        finally:
            taking_in.cancel()
            if getattr(self, "resync_timer", None) is not None:
                self.resync_timer.cancel()
            # Ended without its disconnect: daphne cancels a consumer that has not finished 10 s
            # after its connection closed (a busy process: the disconnect waited behind the
            # thread of the database calls). Its channel must still leave the game's and the
            # player's groups, where every push to them would be kept for it in this process
            # (found by the soak test). Shielded: daphne cancels again each second. The
            # presence entry expires by itself within a minute.
            layer_watch.forget(self)
            if getattr(self, "counted", ""):  # its entry expires: the socket is gone
                socket_keeper.let_go(self.counted)
            if getattr(self, "joined", None):
                await asyncio.shield(self._leave_groups())

    async def _take_in(self, receive):
        """Take the browser's messages as they arrive: each counts against the socket's
        allowance at once, and past it, or with MAX_BACKLOG messages still waiting to be
        handled, the socket is closed for flooding (issue 34: stale messages, each answered
        slowly, used to be counted only when read, so they never ran out, and queued in the
        server's memory without bound). What comes after that is dropped."""
        while True:
            message = await receive()
            if message["type"] == "websocket.receive":
                if self.flooded:
                    continue
                if not self._take_token() or self.inbox.qsize() >= MAX_BACKLOG:
                    self.flooded = True
                    await self._flooding()
                    continue
            self.inbox.put_nowait(message)
            if message["type"] == "websocket.disconnect":
                return

    async def _flooding(self):
        logger.warning("live: too many messages from user %s; closing", self.user.pk)
        with contextlib.suppress(Exception):  # a limit is a guard, never a reason to fail
            await database_sync_to_async(sockets.flooding)(self._player_id(), self.address)
        with contextlib.suppress(*BROWSER_GONE):
            await self.close(code=TOO_MANY)

    async def _release_channel(self):
        """Make sure the channel layer has let go of this consumer's channel.

        The publish/subscribe layer unsubscribes a consumer's channel when the receive waiting
        on it is cancelled, as channels does when a consumer ends. A consumer that ends just as
        a message for it has arrived has no receive waiting any more, and its channel stayed
        subscribed, with a queue in this process, for good (channels_redis issue 276; the soak
        found about one socket in fifteen). So wait on it once more, briefly: cancelled
        while waiting, the receive lets go of the channel (subscribing it again first, if it had
        been let go already)."""
        for _ in range(RELEASE_TRIES):
            try:
                await asyncio.wait_for(self.channel_layer.receive(self.channel_name), RELEASE_WAIT)
            except TimeoutError:
                return
        logger.warning("live: channel %s still had messages when released", self.channel_name)

    async def dispatch(self, message):
        # channels' own dispatch first closes stale database connections in a worker thread,
        # before every message: a thread hop for each push, ping and event, most of which touch
        # no database. Every database access here goes through database_sync_to_async, which
        # closes them in its own thread around the call, so the hop is spared.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        self.user = self.scope.get("user") or AnonymousUser()
        # Read once: `user` is a lazy object, and every push asks whether it has a seat here.
        self.user_id = self.user.pk if self.user.is_authenticated else None
        self.language = language_of(self.scope, self.user)
        # Everything this socket draws is in its viewer's language, and the database threads it
        # hands work to inherit it. Set once for the socket's life: the active language is a
        # context variable (asgiref's Local, copied on write), and channels handles each of this
        # socket's messages in the task that runs it (issue 36: reading the language and
        # switching to it for every message was a watcher's push's largest cost of its own).
        translation.activate(self.language)
        self.game_id = self.scope["url_route"]["kwargs"].get("game_id")
        self.joined: list[str] = []
        self.seats: tuple = ()
        self.online: set[int] = set()
        self.version: int | None = None  # the version this socket has brought the page to
        self.newest = 0  # the newest version of the game this socket has heard of
        self.early: dict[int, dict] = {}  # pushes waiting for the version before them
        self.page_id = ""  # games/live/changes.py: the page's own moves come in their answers
        # What the page shows of the game's parts, piece by piece (games/drawing/cache/looks.py),
        # so a push brings only the pieces that look different; and what the page said it shows
        # after a move's answer that has not reached this socket yet: (version, looks).
        self.shown: dict[str, list[str]] = {}
        self.reported: tuple[int, dict] | None = None
        self.badge: badge.Badge | None = None  # what the nav badge counts, once read
        self.started = False
        self.last_resync = 0.0
        self.resync_timer: asyncio.TimerHandle | None = None  # a redraw due when it fires
        self.seen = 0  # the version this socket last recorded as seen (games/seen.py)
        self.present, self.beat_at = True, time.monotonic()  # presence recorded on connecting
        self.address = (self.scope.get("client") or ["unknown"])[0] or "unknown"
        self.counted = ""  # this socket's name in games/live/sockets.py's sets
        self.watcher = updates.watcher_facts(self.user)  # read once, not at every push

        cache.holds_sockets()  # the moves made in this process keep their versions for pushes
        # Accept first, then close with a code: the page sees the code and does not retry.
        await self.accept()
        layer_watch.watch(self, functools.partial(self.close, code=LAYER_DOWN))
        admitted = await database_sync_to_async(sockets.admit)(
            self._player_id(), self.address, self.channel_name
        )
        if not admitted.allowed:
            return await self.close(code=admitted.code)
        self.counted = admitted.member
        if self.counted:
            socket_keeper.hold(self.counted, self._player_id(), self.address)
        for oldest in admitted.evict:  # the player's oldest pages make room for this one
            with contextlib.suppress(Exception):
                await self.channel_layer.send(oldest, {"type": "live.replaced"})
        groups = []
        if self.game_id is not None:
            found = await database_sync_to_async(socket_access)(self.game_id, self.user)
            if found is None:
                return await self.close(code=NO_SUCH_GAME)
            if not found.allowed:  # told as a game that does not exist: a private one hides
                logger.info("live: user %s may not watch game %s", self.user.pk, self.game_id)
                return await self.close(code=NO_SUCH_GAME)
            self.seats, self.started = found.seats, found.started
            groups.append(game_group(self.game_id))
        elif not self.user.is_authenticated:
            return await self.close(code=NOT_SIGNED_IN)
        if self.user.is_authenticated:
            groups.append(user_group(self.user.pk))
        for group in groups:
            # Twice: after a Redis restart the first command on a pooled connection fails.
            for attempt in range(2):
                try:
                    await self.channel_layer.group_add(group, self.channel_name)
                    break
                except Exception as error:
                    if attempt:
                        logger.warning("live: cannot join %s (%s); closing", group, error)
                        return await self.close(code=LAYER_DOWN)
            self.joined.append(group)

        if self.user.is_authenticated:
            # The badge may have changed since the page was drawn (or while it was away).
            await self._send({"type": "user", "html": await self._count_badge()})
        if self.game_id is not None:
            await self._arrive()
            user_ids = [user_id for _, user_id, _ in self.seats]
            self.online = await database_sync_to_async(presence.watching)(self.game_id, user_ids)
            query = parse_qs(self.scope.get("query_string", b"").decode("latin1"))
            self.page_id = page_id((query.get("page") or [None])[0])
            self.shown = page_looks((query.get("looks") or [None])[0])
            lobby = _version((query.get("lobby") or [None])[0])
            if lobby is not None:  # a waiting room: its seats, or the game if it started since
                await self._lobby_catch_up(lobby)
            else:
                await self._catch_up(_version((query.get("v") or [None])[0]))
            if self.seats and self.started:
                # The page's dots were drawn before this socket: send them as they are now.
                html = updates.draw_presence(self.seats, self.online)
                await self._send({"type": "presence", "html": html})

    async def disconnect(self, code):
        if self.counted:
            socket_keeper.let_go(self.counted)
            await database_sync_to_async(sockets.release)(
                self._player_id(), self.address, self.counted
            )
            self.counted = ""
        await self._leave_groups()
        if self.game_id is not None:
            await self._depart()

    async def _leave_groups(self):
        joined, self.joined = self.joined, []
        for group in joined:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                logger.info("live: cannot leave %s", group, exc_info=True)

    # --- from the browser ----------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if self.flooded:
            return  # what came before the flood's close: moot
        if text_data is None or len(text_data) > MAX_MESSAGE:
            return self._ignore("not a short text message", bytes_data or text_data)
        try:
            message = json.loads(text_data)
        except ValueError:
            return self._ignore("not JSON", text_data)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "ping":
            await self._heartbeat(message)
        elif kind == "looks":
            self._page_says(message)
        elif kind == "sync":
            version = _version(message.get("version"))
            if version is None:
                return self._ignore("a sync without a valid version", text_data)
            if self.game_id is not None:
                await self._catch_up(version)
        else:
            self._ignore("an unknown message", text_data)

    async def _heartbeat(self, message: dict):
        """The page's heartbeat: keep a seated player's presence (once per BEAT_KEPT seconds: a
        page beats every 25 s, and the records last a minute; a page that comes back into view
        is present at once); record the version its visible page shows as seen; and mend a
        push the socket could not draw. What it writes goes in one database thread, not one
        each; a watcher's writes none (its socket is kept counted by its process:
        games/live/socket_keeper.py), so its heartbeat costs no thread at all (issue 36)."""
        visible = message.get("visible") is not False
        now = time.monotonic()
        refresh = not (visible and self.present and now - self.beat_at < BEAT_KEPT)
        shown = _version(message.get("version")) if self.game_id is not None else None
        seen_now = self._newly_seen(shown) if visible else None
        if refresh:
            self.beat_at, self.present = now, visible
        presence_kept = refresh and self.game_id is not None and self._seated()
        if presence_kept or seen_now is not None:
            beat = database_sync_to_async(self._beat)
            dot_changed = await beat(presence_kept, visible, seen_now)
            if dot_changed:
                await self._broadcast_presence()
        if visible and shown is not None and self._undrawn() and shown < self.newest:
            await self._catch_up(shown)  # a push went undrawn: the heartbeat mends it

    def _beat(self, presence_kept: bool, visible: bool, seen_now: int | None) -> bool:
        """A heartbeat's writes, in a database thread: a seated player's presence
        (`presence_kept`; a hidden tab is not watching, so emails are no longer held back for
        it), and the version seen. Whether the player's dot turned on or off."""
        dot_changed = False
        if presence_kept:
            dot_changed = self._record_presence(visible)
        if seen_now is not None:
            seen.see_game(game_id=self.game_id, user=self.user.pk, version=seen_now)
        return dot_changed

    def _record_presence(self, present: bool) -> bool:
        """Record this page in the presence, or forget it (a hidden tab is not watching: emails
        are no longer held back for it); whether the player's dot turned on or off. Only the
        seats' presence is ever read (their dots, their held-back emails): a watcher's page
        records none, which spared a Redis transaction per watcher per heartbeat (issue 36)."""
        if not self._seated():
            return False
        change = presence.arrive if present else presence.depart
        return change(self.game_id, self.user_id, self.channel_name)

    def _page_says(self, message: dict):
        """``{"type": "looks", "version": v, "looks": ...}``: the page shows version v with these
        looks (after a move's answer, or a resync), maybe before this socket heard of v."""
        version, said = _version(message.get("version")), message.get("looks")
        if version is None or not isinstance(said, str):
            return self._ignore("looks without a version", message)
        if version == self.version:
            self.shown = page_looks(said)
        elif self.version is not None and version > self.version:
            self.reported = (version, page_looks(said))

    def _undrawn(self) -> bool:
        """Whether this socket heard of a version of the game that it did not send the page (a
        push it could not draw while the database was out of reach). A heartbeat that shows
        less than what the socket did send crossed that push on its way: no redraw for it
        (issue 36)."""
        behind = self.version is not None and self.version < self.newest
        return self.started and behind and not self.early  # a held push redraws by itself

    def _ignore(self, why, data):
        logger.info("live: ignored %s from user %s: %.80r", why, self.user.pk, data)

    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.tokens_at) / REFILL)
        self.tokens_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    # --- from the channel layer (one method per event type) ------------------------------------

    async def game_changed(self, event):
        version = event["version"]
        cache.keep_carried(event)  # once per process, drawn here or not
        self.newest = max(self.newest, version)
        if self.version is not None and version <= self.version:
            return  # this page already shows it (a resync got there first)
        if event["ended"] or self.version is None:
            return await self._resync()  # the end redraws everything
        if version > self.version + 1:  # a gap: a push still on its way, or lost
            return await self._hold_early(event)
        if self.page_id and event.get("answered") == self.page_id:
            self.version = version  # this page's own move: its answer drew it
            self._answered(event)
            return await self._take_early()
        try:
            html, now, shared = await self._draw(event)
        except Exception:
            # The page stays where it was; the next push shows a gap, and that resyncs it.
            logger.exception("live: cannot draw version %s of game %s", version, self.game_id)
            return
        # A seat's head carries its dot as the move saw it: put right as this socket knows it
        # now. A head not sent left the page's dot as the presence pushes set it.
        seats = [seat for seat in self.seats if f'id="seat-{seat[0]}-head"' in html]
        dots = updates.draw_presence(seats, self.online) if seats else ""
        self.version = version
        self._drawn(now)
        message = {"type": "push", "version": version, "html": html + dots}
        if shared is None:
            await self._send(message)
        else:  # every watcher here who sees the same gets the same text: encoded once (issue 36)
            await self._send_text(push_drawing.shared_text((*shared, dots), message))
        await self._take_early()

    async def _hold_early(self, event):
        """Keep a push that came before the version just before it, for EARLY_WAIT seconds: the
        one it follows may still come (`_take_early`); if not, the page is redrawn whole
        (`live_gap`)."""
        version = event["version"]
        if len(self.early) >= MOST_EARLY:
            return await self._resync()
        self.early[version] = event
        gap = {"type": "live.gap", "version": version}
        asyncio.get_running_loop().call_later(EARLY_WAIT, self.inbox.put_nowait, gap)

    async def _take_early(self):
        """The push held for the version this socket has just sent, if it came (`_hold_early`)."""
        following = self.early.pop(self.version + 1, None) if self.version is not None else None
        if following is not None:
            await self.game_changed(following)

    async def live_gap(self, message):
        """A push held for the version before it is still waiting (this socket's own message,
        never the browser's): that version is lost, the page is redrawn whole."""
        held = self.early.pop(message["version"], None)
        if held is not None and self.version is not None and self.version < held["version"]:
            await self._resync()

    async def _draw(self, event) -> tuple[str, dict, tuple | None]:
        """The push of `event` for this socket's page, and the key it is shared under: a
        player's drawn for them (None); a watcher's drawn once for every watcher who sees the
        same (games/drawing/updates.py `watchers_key`), and then taken as it is kept, without a
        thread."""
        if self._seated():
            # Drawn by the process that made the move, for this player as this socket would:
            # only picked here, by what the page shows (games/drawing/change.py).
            ahead = updates.drawn_ahead(event, self.user_id, self._facts())
            picked = ahead.pick(self.shown) if ahead is not None else None
            if picked is not None:
                return (*picked, None)
            draw = updates.draw_change
            html, now = await push_drawing.drawn(event, draw, event, self.user, self.shown)
            return html, now, None
        key = updates.watchers_key(event, self.watcher, self.shown)
        found = updates.kept_for_watchers(key, self.language)
        if found is None:
            draw = updates.draw_for_watchers
            found = await push_drawing.drawn(event, draw, key, event, self.user, self.shown)
        return (*found, (*key, self.language))

    def _answered(self, event):
        """The page's own move: its answer changed the status and the parts the move touched,
        as the page saw them. What the page shows of them now it says itself (a ``looks``
        message), maybe already."""
        reported, self.reported = self.reported, None
        if reported is not None and reported[0] == event["version"]:
            self.shown = reported[1]
            return
        parts = [STATUS, *(f"seat-{number}" for number in _touched(event))]
        self._drawn(dict.fromkeys([*parts, "pool"] if event["pool"] else parts))

    def _drawn(self, now: dict):
        """The page shows `now` ({part: its looks}, None for a part whose looks are not known)."""
        for part, shown in now.items():
            if shown is None:
                self.shown.pop(part, None)
            else:
                self.shown[part] = shown

    async def live_resync(self, message):
        """The redraw put off by `_resync` is due (this socket's own message, never the
        browser's: those are all ``websocket.receive``)."""
        self.resync_timer = None
        await self._resync()

    async def live_replaced(self, event):
        """The player opened more pages than they may hold sockets: this, their oldest, closes
        (its page comes back when it is looked at again)."""
        await self.close(code=sockets.REPLACED)

    async def presence_changed(self, event):
        if not self.started:
            return  # a waiting room shows no dots
        online = set(event["online"])
        seats = [seat for seat in self.seats if (seat[1] in online) != (seat[1] in self.online)]
        self.online = online
        if seats:
            await self._send({"type": "presence", "html": updates.draw_presence(seats, online)})

    async def game_lobby_changed(self, event):
        """A waiting table's seats changed, it started or it was cancelled: redraw its seats for
        this viewer (games/live/changes.py `LobbyChange`)."""
        seated = self._seated()
        self.seats = tuple(tuple(seat) for seat in event["seats"])
        if self._seated() and not seated:  # they took a seat: their presence counts now
            await self._arrive()
        if not self.started:
            await self._send_lobby()

    async def queue_changed(self, event):
        """The player changed their queued draft of this game on another page (it comes on their
        own group only): redraw it here (games/live/changes.py `queue_event`)."""
        if event.get("game") != self.game_id or self.game_id is None:
            return
        if self.page_id and event.get("answered") == self.page_id:
            return  # this page made the change: its answer drew it
        html = await database_sync_to_async(updates.draw_queue)(self.game_id, self.user)
        if html:
            await self._send({"type": "queue", "html": html})

    async def game_chat(self, event):
        """A message of the table talk written or deleted (games/live/changes.py `chat_event`):
        drawn for this viewer if they may read the talk, players always, people watching if
        the table lets them (games/chat.py), unless its author and the viewer are in a block."""
        if event.get("game") != self.game_id or self.game_id is None:
            return
        player = self.user.is_authenticated and any(
            user_id == self.user.pk for _, user_id, _ in self.seats
        )
        if not (player or event.get("spectators")):
            return
        message = event["message"]
        author = message["author_id"]
        if self.user.is_authenticated and author != self.user.pk:
            # Two players in a block never read each other (accounts/blocking.py): one query.
            kept_apart = database_sync_to_async(blocking.blocked_either_way)
            if await kept_apart(self.user.pk, author):
                return
        html = updates.draw_chat(message, self.user, self.game_id)  # no query: a short template
        mine = message["author_id"] == self.user.pk
        await self._send({"type": "chat", "id": message["id"], "html": html, "mine": mine})

    async def game_rematch(self, event):
        """The ended game's rematch was offered or called off (games/live/changes.py
        `rematch_event`): redraw its box under the results for this viewer."""
        if event.get("game") != self.game_id or self.game_id is None:
            return
        html = await database_sync_to_async(updates.draw_rematch)(self.game_id, self.user)
        await self._send({"type": "rematch", "html": html})

    async def user_notify(self, event):
        html = ""
        if event.get("badge"):
            html = await self._redraw_badge(event)
        if event.get("notice") and event.get("game") != self.game_id:
            draw = database_sync_to_async(updates.draw_notice)
            html += await draw(self.user, event["notice"], event["game"])
        if html:
            await self._send({"type": "user", "html": html})

    # --- helpers -------------------------------------------------------------------------------

    async def _redraw_badge(self, event) -> str:
        """The badge after `event`: updated from what it says about one game when this page's
        count knows that game (no query; nothing to send if the count stays), else counted
        again."""
        waiting = event.get("waiting")
        if waiting is not None and self.badge is not None:
            changed = self.badge.update(event["game"], event["version"], waiting)
            if changed is not None:
                return self.badge.draw() if changed else ""
        return await self._count_badge()

    async def _count_badge(self) -> str:
        self.badge = await database_sync_to_async(badge.count_badge)(self.user)
        return self.badge.draw()

    async def _catch_up(self, version: int | None):
        """Bring the page from `version` to the current one: nothing, or a whole redraw."""
        behind = self.version is not None and version is not None and version < self.version
        if behind and self.started:  # behind what this socket sent it: no need to look
            self.version = version
            return await self._resync()
        current = await database_sync_to_async(state_store.current_version)(self.game_id)
        if current is None or not self.started:
            return
        if version is not None and version >= current:
            self.version = current
            return await self._send({"type": "synced", "version": current})
        self.version = version  # what the page says it shows, whatever this socket sent it
        await self._resync()

    async def _lobby_catch_up(self, version: int):
        """A waiting room that shows `version` connects: redraw its seats if they changed since,
        or tell it that the game started (or was cancelled) meanwhile."""
        current = await database_sync_to_async(state_store.current_version)(self.game_id)
        if current is not None and current > version:
            await self._send_lobby()

    async def _send_lobby(self):
        """Send the seats of the waiting room as they are now: ``{"type": "lobby", "version": v,
        "html": ..., "started": b, "url": ...}``. On the start the page loads the game page
        (``url``) in place, and this socket carries that game's pushes from then on."""
        try:
            lobby = await database_sync_to_async(updates.draw_lobby)(self.game_id, self.user)
        except Exception:
            logger.exception("live: cannot draw the waiting room of game %s", self.game_id)
            return
        if lobby is None:
            return
        message = {"type": "lobby", "version": lobby.version, "html": lobby.html}
        if lobby.started:
            self.started, self.version = True, None  # the game page syncs once it is loaded
            message.update(started=True, url=reverse("games:game", args=[self.game_id]))
        await self._send(message)

    async def _resync(self):
        """Redraw the whole game for the page: at once, or, within RESYNC_INTERVAL of the last
        redraw, once when the interval ends, for every ask meanwhile. Never by waiting here:
        the socket goes on with its other messages (and pushes) in between."""
        wait = self.last_resync + RESYNC_INTERVAL - time.monotonic()
        if wait > 0:
            if self.resync_timer is None:
                self.resync_timer = asyncio.get_running_loop().call_later(
                    wait, self.inbox.put_nowait, {"type": "live.resync"}
                )
            return
        self.last_resync = time.monotonic()
        try:
            drawn = await database_sync_to_async(updates.draw_game)(self.game_id, self.user)
        except Exception:
            logger.exception("live: cannot draw game %s", self.game_id)
            return
        if drawn is None:
            return
        version, html = drawn
        if self.version is not None and version <= self.version:
            return
        self.version = version
        self.shown = {}  # the page says what it shows once it has drawn it
        html += updates.draw_presence(self.seats, self.online)
        await self._send({"type": "resync", "version": version, "html": html})
        self.early = {held: event for held, event in self.early.items() if held > version}
        await self._take_early()

    async def _arrive(self):
        """Record (or refresh) this page in the presence; tell the game when a dot turns on."""
        if self._seated() and await database_sync_to_async(self._record_presence)(True):
            await self._broadcast_presence()

    async def _depart(self):
        """Forget this page in the presence; tell the game when a dot turns off."""
        if self._seated() and await database_sync_to_async(self._record_presence)(False):
            await self._broadcast_presence()

    def _newly_seen(self, version: int | None) -> int | None:
        """The version to record as seen by the player (games/seen.py) for a visible page that
        shows `version`, once per version: as far as this socket brought the page, whatever
        the page says. None when there is nothing new to record."""
        if version is None or self.version is None or not self._seated():
            return None
        version = min(version, self.version)
        if version <= self.seen:
            return None
        self.seen = version
        return version

    def _facts(self) -> tuple:
        """What this socket's drawings depend on of its viewer: their language, time zone and
        colour-blind setting, as games/drawing/change.py `ChangeDrawing.facts` says them."""
        _, colour_blind, zone = self.watcher
        return (self.language, zone, colour_blind)

    def _player_id(self) -> int | None:
        return self.user.pk if self.user.is_authenticated else None

    def _seated(self) -> bool:
        return self.user_id is not None and any(seat[1] == self.user_id for seat in self.seats)

    async def _broadcast_presence(self):
        user_ids = [user_id for _, user_id, _ in self.seats]
        online = await database_sync_to_async(presence.watching)(self.game_id, user_ids)
        try:
            await self.channel_layer.group_send(
                game_group(self.game_id),
                {"type": "presence.changed", "online": sorted(online)},
            )
        except Exception:
            logger.warning("live: cannot send presence of game %s", self.game_id, exc_info=True)

    async def _send(self, message: dict):
        await self._send_text(push_drawing.text(message))

    async def _send_text(self, text: str):
        try:
            await self.send(text_data=text)
        except BROWSER_GONE:
            # The page closed its socket (a close frame came) while this was drawn: the message
            # is moot, and the disconnect that follows leaves the groups and the presence. Let
            # through, the error would end the consumer without them, leaving its channel in
            # the game's and the player's groups for a day (found by the soak test).
            logger.debug("live: the page of user %s closed its socket first", self.user.pk)
