"""Notice, in each daphne process, that the channel layer was lost, and send its pages back.

The publish/subscribe channel layer (settings.CHANNEL_LAYERS) rides out a Redis outage by
itself: its connection re-subscribes when Redis is back. But what was published meanwhile is
gone, and nothing tells the consumers, which keep waiting, open, for pushes that will not come.
So one watch per event loop with sockets sends itself a message through the layer every few
seconds. When that fails (Redis away: the send fails at once; a subscriber that went deaf: the
message does not come back), every socket of the process is closed with "come back later"
(4503), as a page that cannot join its groups is told: the page reconnects, is refused while
Redis is away, and is brought up to date from the version it shows once it is back.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)


# How long the watch's message may take to come back: long enough that a loaded process (a loop
# late by seconds) is not taken for a lost layer. How often it checks: settings.
ROUND_TRIP = 10.0

# Each open socket's way to close itself, by its consumer (which forgets itself when it ends).
_sockets: dict[object, Callable[[], Awaitable]] = {}
# One watch per event loop (daphne runs one; each in-process test its own).
_watches: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}


def watch(consumer, close: Callable[[], Awaitable]) -> None:
    """Close `consumer`'s socket with `close` if this process loses the channel layer."""
    interval = settings.LIVE_LAYER_WATCH_SECONDS
    if not interval or isinstance(get_channel_layer(), InMemoryChannelLayer):
        return  # turned off; or one process, no Redis: nothing to lose
    _sockets[consumer] = close
    loop = asyncio.get_running_loop()
    for old in [old for old in _watches if old.is_closed()]:
        del _watches[old]
    task = _watches.get(loop)
    if task is None or task.done():
        _watches[loop] = loop.create_task(_watch(interval), name="channel-layer-watch")


def forget(consumer) -> None:
    _sockets.pop(consumer, None)


async def _watch(interval: float) -> None:
    layer = get_channel_layer()
    heard = asyncio.Event()
    listening: asyncio.Task | None = None  # waits on the watch's own channel for good
    lost = False
    try:
        while True:
            try:
                if listening is None or listening.done():
                    channel = await layer.new_channel("watch.")
                    listening = asyncio.ensure_future(_listen(layer, channel, heard))
                heard.clear()
                await layer.send(channel, {"type": "watch"})
                await asyncio.wait_for(heard.wait(), ROUND_TRIP)
            except Exception as error:  # the layer's own errors, or no answer in time
                if listening is not None:
                    listening.cancel()  # a new channel next time
                    listening = None
                if not lost:
                    logger.warning("live: lost the channel layer (%r); closing sockets", error)
                lost = True
                await _close_all()
            else:
                if lost:
                    logger.warning("live: the channel layer is back")
                lost = False
            await asyncio.sleep(interval)
    finally:
        if listening is not None:
            listening.cancel()


async def _listen(layer, channel: str, heard: asyncio.Event) -> None:
    while True:
        await layer.receive(channel)
        heard.set()


async def _close_all() -> None:
    closes = list(_sockets.values())
    _sockets.clear()
    for close in closes:
        try:
            await close()
        except Exception:  # the browser went first
            logger.debug("live: a socket was gone before its close", exc_info=True)
