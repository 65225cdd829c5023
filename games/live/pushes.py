"""Live updates: hand every committed change's events to the channel layer, for every open page.

After every accepted move (games/play/actions/ records its events, games/effects.py sends
them after the commit):

1. `send` runs in the process that made the move, with the transaction's events in order
   (games/live/changes.py: ``game.changed`` to the game's group, ``user.notify`` to a player's
   group for their badge or a notice, ...). The version the move made travels with its
   ``game.changed`` event (`carrying`), so that no process reads it back.
2. The consumer of each open page (games/live/consumers.py) gets each event and draws it for
   its own viewer (games/drawing/updates.py), from the partials that draw the page. A player
   who was watching gets theirs drawn already, by the process that made the move (`carrying`,
   games/drawing/change.py): their socket only picks from it what the page lacks.
3. The page (games/static/games/live.js with htmx's ws extension) swaps them in by id.

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

from games.drawing import cache, updates
from games.live.changes import game_group, user_group
from games.live.push_sender import PushSender, at_exit_flush
from games.models import Event, Game, Seat

# A version as the transaction that made it left it: its game, its seats with their users, its
# new events in order, and who was watching (None: not read).
Made = tuple[Game, list[Seat], list[Event], frozenset[int] | None]

logger = logging.getLogger(__name__)


# How long a sender waits for the channel layer, and how long it stops trying after a failure.
SEND_TIMEOUT = 1.0


PAUSE_AFTER_FAILURE = 5.0


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


def carrying(messages: list[tuple[str, dict]], made: Made | None) -> list[tuple[str, dict]]:
    """`messages` with the version a transaction made (`made`: its game, seats with their users,
    new events, and who was watching or None; or None) carried by its ``game.changed`` event:
    kept for this process's own sockets, and packed for the other processes' when the channel
    layer leaves this one (games/drawing/cache/); and the push of each player who was watching,
    drawn here from it (games/drawing/updates.py `draw_ahead`). A version that cannot be packed
    is read by whoever draws it; a push that cannot be drawn here is drawn by its socket."""
    if made is None:
        return messages
    game, seats, events, online = made
    made_here, carried = (game.pk, game.version), []
    for group, event in messages:
        if event.get("type") == "game.changed" and (event["game"], event["version"]) == made_here:
            try:
                cache.keep_made(game.version, game, seats, events, online)
                if not _layer_is_in_memory():  # else the pages' sockets are in this process
                    event = {**event, "made": cache.pack(game, seats, events, online)}
            except Exception:
                logger.exception("live: cannot carry version %s of game %s", game.version, game.pk)
            try:
                drawn = updates.draw_ahead(event, game, seats, events, online)
                if drawn:
                    event = {**event, "drawn": drawn}
            except Exception:  # their sockets draw it
                logger.exception("live: cannot draw version %s of game %s", game.version, game.pk)
        carried.append((group, event))
    return carried


__all__ = ["carrying", "game_group", "send", "user_group"]
