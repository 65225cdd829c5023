"""Live updates: tell every open page what a committed change touched.

After every accepted move (games/play/actions.py -> games/effects.py, after the commit):

1. `game_changed` runs in the process that made the move, with what the new version touched
   (games/live/changes.py, worked out in the move's transaction). It sends one small
   ``game.changed`` event to the game's group, and a ``user.notify`` event to each player for
   whom the game began or stopped waiting for their move, saying so: each open page keeps its
   nav badge's count game by game (games/live/drawing.py `Badge`) and redraws it without a
   query. `push_notices` sends the notices (games/notices/notice.py: your turn, invitation,
   game over...), with their text.
2. The consumer of each open page (games/live/consumers.py) gets the event and draws it for its
   own viewer (games/live/drawing.py), from the partials that draw the page.
3. The page (games/static/games/live.js with htmx's ws extension) swaps them in by id.

A table still waiting for players (join, leave, start, cancel) sends `lobby_changed` instead: a
``game.lobby_changed`` event that each open waiting-room page's consumer draws as the seats
partial; on the start the page loads the game page in place.

Nothing here may break or slow a move, on any channel layer: pushes leave through the process's
own sender loop (games/live/push_sender.py) while the request answers; a sender that cannot
reach the channel layer logs, and pauses sending for a few seconds, keeping the newest push of
each game for when the pause ends; pages that missed a push notice the gap in versions and
resync.
"""

import asyncio
import logging
import threading
import time

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.utils import translation

from games.live import carried, drawing
from games.live.changes import Change, LobbyChange
from games.live.push_sender import PushSender, at_exit_flush

logger = logging.getLogger(__name__)


# How long a sender waits for the channel layer, and how long it stops trying after a failure.
SEND_TIMEOUT = 1.0


PAUSE_AFTER_FAILURE = 5.0


# Notices (games/notices/notice.py) that come without a move, so they carry the badge themselves.
LOBBY_NOTICES = frozenset({"invitation", "game_started"})


def language_of(user) -> str:
    """The language to draw a push for `user` in, from the mover's process: their own choice,
    else English (their pages' sockets draw what they draw in the page's language)."""
    return getattr(user, "language", "") or settings.LANGUAGE_CODE


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


_paused_until = 0.0


# While sending is paused, the newest ``game.changed`` event of each game: sent when the pause
# ends, so that a page that missed pushes sees the gap in versions and resyncs at once, instead
# of showing an old version (perhaps of a game that has ended) until it next wakes up.
_held: dict[str, dict] = {}


_held_lock = threading.Lock()


def send(messages: list[tuple[str, dict]]) -> bool:
    """Hand each (group, event) to the channel layer; return False if sending is paused after a
    failure. Never raises, and does not wait for Redis (games/live/push_sender.py)."""
    if not messages:
        return True
    if time.monotonic() < _paused_until:
        _hold(messages)
        logger.info(
            "live: channel layer paused after a failure; %d push(es) skipped", len(messages)
        )
        return False
    if _layer_is_in_memory():
        _send_in_memory(messages)
    else:
        _sender.submit(messages)
    return True


_in_memory_sends: set[asyncio.Task] = set()


def _send_in_memory(messages: list[tuple[str, dict]]) -> None:
    """The in-memory layer (no Redis: one process) keeps its queues on its consumers' loop.
    From a thread that runs no loop (a view under daphne, a task) `async_to_sync` runs the send
    on that loop and waits; a thread that runs a loop itself (async code calling in) cannot use
    `async_to_sync`, so the send becomes a task of that loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        async_to_sync(_send_or_pause)(messages)
        return
    task = loop.create_task(_send_or_pause(messages))
    _in_memory_sends.add(task)  # the loop keeps only a weak reference to its tasks
    task.add_done_callback(_in_memory_sends.discard)


async def _send_or_pause(messages: list[tuple[str, dict]]) -> None:
    global _paused_until
    try:
        layer = get_channel_layer()
        sends = (layer.group_send(group, event) for group, event in messages)
        await asyncio.wait_for(asyncio.gather(*sends), SEND_TIMEOUT)
    except Exception as error:
        _paused_until = time.monotonic() + PAUSE_AFTER_FAILURE
        _hold(messages)
        logger.warning(
            "live: cannot send %d push(es) (%r); pausing for %g s",
            len(messages),
            error,
            PAUSE_AFTER_FAILURE,
        )
        if not _layer_is_in_memory():  # on the sender's loop: it sends what was held later
            asyncio.get_running_loop().call_later(PAUSE_AFTER_FAILURE, _send_held)


def _hold(messages: list[tuple[str, dict]]) -> None:
    with _held_lock:
        for group, event in messages:
            if event.get("type") != "game.changed":
                continue  # badges and notices: the next page load shows them
            held = _held.get(group)
            if held is None or held["version"] < event["version"]:
                _held[group] = event


def _send_held() -> None:
    with _held_lock:
        messages = list(_held.items())
        _held.clear()
    send(messages)  # held again if the pause was extended meanwhile: its own timer sends them


def _layer_is_in_memory() -> bool:
    return isinstance(get_channel_layer(), InMemoryChannelLayer)


_sender = PushSender(_send_or_pause)


at_exit_flush(_sender)


def game_changed(change: Change, *, game=None, seats=None, events=(), online=None) -> None:
    """Tell every open page of the game what `change` touched; refresh the badges of the players
    whose count of waiting games it changed.

    `game` and `seats` (with their users), when given, are the game as the change's own
    transaction left it, `events` its new events and `online` who was watching, if it read
    that: the processes holding the game's sockets draw the push from them instead of reading
    the game again, this one from memory, the others from the event (games/live/carried.py)."""
    made_here = game is not None and seats is not None and game.version == change.version
    event = change.event()
    if made_here:
        drawing.keep_made(change.version, game, seats, events, online)
        if not _layer_is_in_memory():  # else the pages' sockets are in this process
            event["made"] = carried.pack(game, seats, events, online)
    messages = [(game_group(change.game_id), event)]
    for user_id, waiting in change.waiting_changed:
        event = badge_event(change.game_id, version=change.version, waiting=waiting)
        messages.append((user_group(user_id), event))
    send(messages)


def lobby_changed(change: LobbyChange) -> None:
    """Tell every open waiting-room page of the table that its seats changed, that it started
    (the pages become the game page) or that it was cancelled; each page's consumer draws it
    for its viewer (games/live/drawing.py `draw_lobby`)."""
    send([(game_group(change.game_id), change.event())])


def refresh_badges(game_id: int, user_ids) -> None:
    """Ask the open pages of these players to count their waiting games again (e.g. their
    invitation to this game stopped counting: it started or was cancelled)."""
    send([(user_group(user_id), badge_event(game_id)) for user_id in user_ids])


def push_notices(notices, *, users, game, seats) -> None:
    """Send each notice (games/notices/notice.py) about `game` to the open pages of its
    recipients, drawn for each. `users` ({user id: user}) are the recipients and `seats` the
    game's, with their users, as the change that made the notices left them."""
    seat_of = {seat.user_id: seat for seat in seats}
    messages = []
    for notice in notices:
        event = {"type": "user.notify", "game": game.pk, "badge": notice.kind in LOBBY_NOTICES}
        for user_id in notice.user_ids:
            user = users.get(user_id)
            if user is not None:
                with translation.override(language_of(user)):  # the recipient's, not the mover's
                    html = drawing.draw_notice(
                        user, notice.kind, game, seat=seat_of.get(user_id), seats=seats
                    )
                messages.append((user_group(user_id), {**event, "notice": html}))
    send(messages)


def queue_changed(game, seats, number: int, *, answered_page: str = "") -> None:
    """Redraw the Drafting-ahead panel of the player at seat `number` (they changed their queued
    draft) on their own other pages of the game: a ``queue.changed`` event to their own group,
    drawn for them here. Nobody else's page hears of it (games/play/actions.py `queue_drafts`);
    the page that made the change skips it (its answer drew it)."""
    seat = seats[number]
    with translation.override(language_of(seat.user)):
        html = drawing.draw_queue(game, seats, seat.user)
    event = {"type": "queue.changed", "game": game.pk, "html": html, "answered": answered_page}
    send([(user_group(seat.user_id), event)])


def chat_changed(game, message: dict) -> None:
    """Send a message of the game's table talk, written or deleted, to every open page of the
    game; each page's socket draws it for its viewer, if they may read the talk
    (games/live/consumers.py `game_chat`)."""
    event = {
        "type": "game.chat",
        "game": game.pk,
        "spectators": game.spectators_read_chat,
        "message": message,
    }
    send([(game_group(game.pk), event)])


def rematch_changed(game_id: int) -> None:
    """The rematch of an ended game was offered or called off: every open page of that game
    redraws its offer for its viewer (games/live/consumers.py `game_rematch`)."""
    send([(game_group(game_id), {"type": "game.rematch", "game": game_id})])


def badge_event(game_id: int, *, version: int | None = None, waiting: bool | None = None) -> dict:
    """A ``user.notify`` event that asks the player's open pages to redraw the badge: with the
    game's `version` and whether it now `waiting`s for the player, each page updates its own
    count of this game (`Badge`) without a query; without them, it counts again."""
    event = {"type": "user.notify", "game": game_id, "badge": True, "notice": ""}
    if version is not None and waiting is not None:
        event["version"], event["waiting"] = version, waiting
    return event
