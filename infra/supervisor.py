"""Keep the platform's processes running for `manage.py up`, as systemd's `Restart=` does for a
deployment (docs/deploy.md): a child that dies is started again after a back-off that doubles
with each crash, and logged; only a child that keeps crashing (MAX_CRASHES within WINDOW
seconds) stops the platform, since then something is wrong that restarting will not mend.

The clock is a parameter (`now`), so the back-off and the give-up rule are tested without
waiting for them.
"""

import subprocess
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

# A child that crashes this many times within WINDOW seconds stops the platform.
MAX_CRASHES = 5
WINDOW = 120.0
# The first restart waits FIRST_BACKOFF seconds, each further one twice as long, at most
# MAX_BACKOFF: a child that dies at once after starting does not spin.
FIRST_BACKOFF = 1.0
MAX_BACKOFF = 30.0


@dataclass
class Child:
    """One process of the platform: how to start it, and its crashes of late."""

    name: str
    start: Callable[[], subprocess.Popen]
    process: subprocess.Popen | None = None
    crashes: deque = field(default_factory=deque)  # when it exited, within the window
    restart_at: float | None = None

    def crashed(self, now: float) -> float:
        """Note a crash at `now`; return how long to wait before starting it again."""
        self.crashes.append(now)
        while self.crashes and self.crashes[0] < now - WINDOW:
            self.crashes.popleft()
        return min(FIRST_BACKOFF * 2 ** (len(self.crashes) - 1), MAX_BACKOFF)

    @property
    def gave_up(self) -> bool:
        return len(self.crashes) >= MAX_CRASHES


class GaveUp(Exception):
    """A child crashed too often: the platform stops."""


class Supervisor:
    """Start the children, then start again each one that exits, until told to stop."""

    def __init__(self, children: list[Child], say: Callable[[str], None], now=time.monotonic):
        self.children = children
        self.say = say
        self.now = now

    def start_all(self) -> None:
        for child in self.children:
            child.process = child.start()

    def tend(self) -> None:
        """Look at every child once: note the ones that exited and start again those whose
        back-off is over. Raise GaveUp when one crashed too often."""
        now = self.now()
        for child in self.children:
            if child.restart_at is not None:
                if now >= child.restart_at:
                    child.restart_at = None
                    child.process = child.start()
                    self.say(f"Started the {child.name} process again (pid {child.process.pid}).")
                continue
            code = child.process.poll() if child.process is not None else None
            if code is None:
                continue
            wait = child.crashed(now)
            if child.gave_up:
                raise GaveUp(
                    f"The {child.name} process exited ({code}) {len(child.crashes)} times in "
                    f"{WINDOW:.0f} s: stopped them all."
                )
            child.restart_at = now + wait
            self.say(
                f"The {child.name} process exited ({code}); starting it again in {wait:.0f} s "
                f"(crash {len(child.crashes)} of {MAX_CRASHES} allowed in {WINDOW:.0f} s)."
            )

    @property
    def processes(self) -> list[subprocess.Popen]:
        return [child.process for child in self.children if child.process is not None]
