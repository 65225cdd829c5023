"""Where a socket draws a push, and the text that many sockets share (issue 36).

Drawing is CPU alone: in a database thread it only waits for the interpreter's lock, and the
thread hop per socket per push (waking the event loop from the thread) was about a sixth of
daphne's CPU. So a push whose version the process holds (made or carried here: no query) is
drawn on the socket's event loop; one that needs the database after all, which Django refuses
on the loop, is drawn in a database thread. A watchers' push is the same text for every
watcher of the process who sees the same: encoded once.
"""

import json

from channels.db import database_sync_to_async
from django.core.exceptions import SynchronousOnlyOperation

from games.drawing import cache
from infra.lru import LRU, MIB, text_size

_texts = LRU(256, max_bytes=4 * MIB, weigh=text_size)


def text(message: dict) -> str:
    """A message to a page, as the socket sends it."""
    return json.dumps(message, separators=(",", ":"))


def shared_text(key: tuple, message: dict) -> str:
    """`text(message)`, made once for every socket here that sends it under `key`."""
    return _texts.get_or_make(key, lambda: text(message))


# Versions held here whose drawing needed the database all the same (the move log to read, the
# votes): the sockets that come next go straight to the thread, where the drawing the first one
# made there is kept for them, instead of each drawing on the loop until it fails.
_to_thread = LRU(256)


async def drawn(event: dict, draw, *args):
    """`draw(*args)` for a push of `event`: on the event loop when this process holds the
    version it draws, else (or when it needs a query after all) in a database thread."""
    version = (event["game"], event["version"])
    if cache.held(*version) and _to_thread.get(version) is None:
        try:
            return draw(*args)
        except SynchronousOnlyOperation:
            _to_thread.put(version, True)
    return await database_sync_to_async(draw)(*args)
