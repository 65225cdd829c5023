"""One asyncio loop per process, in a thread, that hands pushes to the channel layer (so a WSGI
request never waits for Redis, and async_to_sync does not start a loop per push)."""

import asyncio
import logging
import os
import threading

from channels.layers import get_channel_layer

log = logging.getLogger("floor.sender")
_lock = threading.Lock()
_loop = None
_pid = None


def _run(loop, started):
    asyncio.set_event_loop(loop)
    loop.call_soon(started.set)
    loop.run_forever()


def _get_loop():
    global _loop, _pid
    with _lock:
        if _loop is None or _pid != os.getpid():
            _loop, _pid = asyncio.new_event_loop(), os.getpid()
            started = threading.Event()
            threading.Thread(target=_run, args=(_loop, started), daemon=True).start()
            started.wait()
        return _loop


async def _send(group, event):
    await get_channel_layer().group_send(group, event)


def _done(future):
    if future.exception() is not None:
        log.warning("push failed: %r", future.exception())


def submit(group, event):
    asyncio.run_coroutine_threadsafe(_send(group, event), _get_loop()).add_done_callback(_done)
