"""Keep this process's open sockets counted, all of them in one go.

A socket counts against its player's and its address's limits (games/live/sockets.py) until its
entry expires, so that the sockets of a process that crashed drop out by themselves. Each page's
heartbeat used to keep its own socket's entry: a database thread and a Redis pipeline for every
page every 25 s, most of what a watcher cost between moves (issue 36). The process knows which
sockets it holds, and daphne closes one whose browser went silent: one task per event loop
keeps them all, every EVERY seconds, in one pipeline.
"""

import asyncio
import logging

from asgiref.sync import sync_to_async

from games.live import sockets

logger = logging.getLogger(__name__)

EVERY = sockets.TTL / 3  # two refreshes may fail before a socket stops counting


class Keeper:
    """The counted sockets of one event loop, and the task that keeps them counted while any is
    open (it ends with the last one: a loop without sockets runs nothing)."""

    def __init__(self):
        self.held: dict[str, tuple[int | None, str]] = {}  # member: (user id, address)
        self.task: asyncio.Task | None = None

    def hold(self, member: str, user_id: int | None, address: str) -> None:
        self.held[member] = (user_id, address)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(
                self._keep(), name="live: keep the sockets counted"
            )

    def let_go(self, member: str) -> None:
        self.held.pop(member, None)

    async def _keep(self) -> None:
        while self.held:
            await asyncio.sleep(EVERY)
            if not self.held:
                return
            try:
                # Redis only, no database: any thread will do.
                await sync_to_async(sockets.refresh_all, thread_sensitive=False)(
                    list(self.held.items())
                )
            except Exception:  # a limit is a guard: the next round tries again
                logger.warning("live: cannot keep %d socket(s) counted", len(self.held))


# One keeper per event loop (daphne runs one; each in-process test its own), as layer_watch's.
_keepers: dict[asyncio.AbstractEventLoop, Keeper] = {}


def _keeper() -> Keeper:
    loop = asyncio.get_running_loop()
    for old in [old for old in _keepers if old.is_closed()]:
        del _keepers[old]  # its sockets went with it
    keeper = _keepers.get(loop)
    if keeper is None:
        keeper = _keepers[loop] = Keeper()
    return keeper


def hold(member: str, user_id: int | None, address: str) -> None:
    """Keep the socket `member` (games/live/sockets.py `admit`) counted while it is open."""
    _keeper().hold(member, user_id, address)


def let_go(member: str) -> None:
    """Stop keeping `member` counted: it closed (released at once) or its consumer ended (its
    entry expires)."""
    _keeper().let_go(member)
