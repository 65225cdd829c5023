"""Live updates: say what a committed change touched, draw it for each viewer, send it.

After every accepted move (games/actions.py -> `transaction.on_commit` -> games/side_effects.py):

1. `game_changed` runs in the process that made the move, after the commit, with what the new
   version touched (games/changes.py, worked out in the move's transaction). It sends one small
   ``game.changed`` event to the game's group, and a ``user.notify`` event to each player for
   whom the game began or stopped waiting for their move, saying so: each open page keeps its
   nav badge's count game by game (`Badge`) and redraws it without a query. `push_notices`
   sends the notices of games/notifications.py (your turn, invitation, game over...), with
   their text.
2. The consumer of each open page (games/consumers.py) gets the event and calls `draw_change`
   for its own viewer. Drawing is per viewer because parts of the page are: the viewer's own
   board is interactive, the pool has draft buttons for the player whose turn it is, the status
   speaks to the viewer in their time zone, and tiles carry the colour-blind shapes when the
   viewer asked for them. The parts that are the same for many viewers (another player's board,
   the pool as the non-drafters see it) are drawn once per process and version and shared,
   because a board with its tiles costs a few milliseconds to draw and a game has many viewers.
3. The page (games/static/games/live.js with htmx's ws extension) swaps them in by id.

Every fragment is drawn by the partial templates that draw the page (templates/games/partials/).
A shared fragment may depend on the viewer only through the colour-blind preference; the tests
check that each pushed fragment is the page's own markup for that viewer.

Nothing here may break or slow a move: pushes leave through the process's own sender loop
(games/push_sender.py) while the request answers; a sender that cannot reach the channel layer
logs, and pauses sending for a few seconds, keeping the newest push of each game for when the
pause ends; pages that missed a push notice the gap in versions and resync.
"""

import asyncio
import logging
import threading
import time

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from games.live import drawing
from games.live.changes import Change
from games.live.push_sender import PushSender, at_exit_flush
from games.models import Game

logger = logging.getLogger(__name__)


# How long a sender waits for the channel layer, and how long it stops trying after a failure.
SEND_TIMEOUT = 1.0


PAUSE_AFTER_FAILURE = 5.0


# Notices (games/notifications.py) that come without a move, so they carry the badge themselves.
LOBBY_NOTICES = frozenset({"invitation", "game_started"})


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
    failure. Never raises, and does not wait for Redis (games/push_sender.py)."""
    if not messages:
        return True
    if time.monotonic() < _paused_until:
        _hold(messages)
        logger.info(
            "live: channel layer paused after a failure; %d push(es) skipped", len(messages)
        )
        return False
    if _layer_is_in_memory():
        # The in-memory layer (no Redis) keeps its queues on its consumers' loop, so it is only
        # reached from that loop: the caller waits for it there, as `async_to_sync` does.
        async_to_sync(_send_or_pause)(messages)
    else:
        _sender.submit(messages)
    return True


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


def game_changed(change: Change, *, game=None, seats=None) -> None:
    """Tell every open page of the game what `change` touched; refresh the badges of the players
    whose count of waiting games it changed.

    `game` and `seats` (with their users), when given, are the game as the change's own
    transaction left it: if this process holds open pages (daphne serving both the moves and
    the sockets), they draw the push from them instead of reading the game again
    (`_snapshot`)."""
    made_here = game is not None and seats is not None and game.version == change.version
    if made_here:
        drawing.keep_made(change.version, game, seats)
    messages = [(game_group(change.game_id), change.event())]
    for user_id, waiting in change.waiting_changed:
        event = badge_event(change.game_id, version=change.version, waiting=waiting)
        messages.append((user_group(user_id), event))
    send(messages)


def refresh_badges(game_id: int, user_ids) -> None:
    """Ask the open pages of these players to count their waiting games again (e.g. their
    invitation to this game stopped counting: it started or was cancelled)."""
    send([(user_group(user_id), badge_event(game_id)) for user_id in user_ids])


def push_notices(notices, *, users, game=None, seats=None) -> None:
    """Send each notice of games/notifications.py to the open pages of its recipients.

    `users` ({user id: user}) are the recipients (games/side_effects.py reads them once, for the
    pushes and the emails); `game` (the notices' game) and `seats` (the game's, with their users)
    spare reading them. Never raises."""
    messages = []
    seat_of = {seat.user_id: seat for seat in seats} if seats is not None else {}
    try:
        for notice in notices:
            found = game if game is not None and game.pk == notice.game_id else None
            if found is None:
                found = Game.objects.filter(pk=notice.game_id).first()
            if found is None:
                continue
            for user_id in notice.user_ids:
                user = users.get(user_id)
                if user is None:
                    continue
                with_badge = notice.kind in LOBBY_NOTICES
                html = drawing.draw_notice(user, notice.kind, found, seat=seat_of.get(user_id))
                event = {"type": "user.notify", "game": found.pk, "badge": with_badge}
                messages.append((user_group(user_id), {**event, "notice": html}))
    except Exception:
        logger.exception("live: cannot draw notices")
        return
    send(messages)


def badge_event(game_id: int, *, version: int | None = None, waiting: bool | None = None) -> dict:
    """A ``user.notify`` event that asks the player's open pages to redraw the badge: with the
    game's `version` and whether it now `waiting`s for the player, each page updates its own
    count of this game (`Badge`) without a query; without them, it counts again."""
    event = {"type": "user.notify", "game": game_id, "badge": True, "notice": ""}
    if version is not None and waiting is not None:
        event["version"], event["waiting"] = version, waiting
    return event
