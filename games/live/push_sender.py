"""One event loop per process, in a thread of its own, that hands pushes to the channel layer.

A move's request (or a task) gives its pushes to this loop and answers at once, instead of
waiting for Redis: under a WSGI server `async_to_sync` would start a thread, an event loop and
a Redis connection for every push; under daphne it waited for the process's main loop, which is
busy with the sockets. Batches leave in the order they were given, one at a time, so the pushes
of one process reach the pages in the order of their versions.

The loop and its thread start with the first push, in the process that sends it. At exit what
is still queued gets a moment to leave. A batch that fails is the caller's to report:
`send_batch` should not raise.
"""

import asyncio
import atexit
import logging
import os
import threading
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)

# How long the process's exit waits for the pushes still queued.
EXIT_GRACE = 2.0


class PushSender:
    def __init__(self, send_batch: Callable[[list], Awaitable[None]]):
        self.send_batch = send_batch
        self._forget()
        # A forked child (a WSGI or Celery worker) has none of the parent's threads: it starts
        # its own loop, with a lock no parent thread can be holding.
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue | None = None
        self.pending = 0

    def submit(self, messages: list) -> None:
        """Queue one batch of (group, event) messages; return at once."""
        loop = self._running_loop()
        with self.lock:
            self.pending += 1
        loop.call_soon_threadsafe(self.queue.put_nowait, messages)

    def flush(self, timeout: float) -> bool:
        """Wait until every batch queued so far has been sent; return whether they were."""
        with self.lock:
            return self.idle.wait_for(lambda: self.pending == 0, timeout)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None:
                self.loop = asyncio.new_event_loop()
                self.queue = asyncio.Queue()
                started = threading.Event()
                thread = threading.Thread(
                    target=self._run, args=(self.loop, started), name="push-sender", daemon=True
                )
                thread.start()
                started.wait()
            return self.loop

    def _run(self, loop: asyncio.AbstractEventLoop, started: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(started.set)
        loop.run_until_complete(self._drain())

    async def _drain(self) -> None:
        while True:
            messages = await self.queue.get()
            try:
                await self.send_batch(messages)
            except Exception:
                logger.exception("push sender: a batch of %d push(es) failed", len(messages))
            finally:
                with self.lock:
                    self.pending -= 1
                    if self.pending == 0:
                        self.idle.notify_all()


def at_exit_flush(sender: PushSender) -> None:
    """Give the pushes still queued a moment to leave when the process ends."""

    def flush():
        if sender.loop is not None and not sender.flush(EXIT_GRACE):
            logger.warning("push sender: %d batch(es) unsent at exit", sender.pending)

    atexit.register(flush)
