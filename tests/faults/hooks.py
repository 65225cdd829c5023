"""Fault injection in the fault tests' Celery workers (imported with `celery worker --include`).

Every task writes to a journal (FAULTS_DIR/journal, one JSON object a line) when it starts and
when its body has returned, so that a test knows what a worker was doing when it was killed.

A test can also make the next run of a task stop and wait to be killed, by creating an empty file
in FAULTS_DIR named ``hold-before-<task name>`` (the task has started, its body has not run) or
``hold-after-<task name>`` (its body has run and committed, the message is not acknowledged yet:
with acks_late the worker acknowledges after this point). One task claims the file, says
``held-before`` / ``held-after`` in the journal, and waits at most HOLD_SECONDS. A file that
says ``due`` is claimed only by a bot's move for the game's version now (``games.bot_move`` takes
the game, the bot and the version): copies of a move the game has gone past pass by.
"""

import json
import os
import time
from pathlib import Path

from celery.signals import task_postrun, task_prerun

DIRECTORY = Path(os.environ.get("FAULTS_DIR", "."))
WORKER = os.environ.get("FAULTS_WORKER", "")
HOLD_SECONDS = 30.0


def journal(event: str, task, task_id: str, args=()) -> None:
    line = json.dumps(
        {
            "event": event,
            "worker": WORKER,
            "pid": os.getpid(),
            "task": task.name,
            "id": task_id,
            "args": list(args or ()),
        },
        default=str,
    )
    # One write of one line to a file opened for appending: lines of several processes never
    # mix (a reader may still see the last one half-written).
    fd = os.open(DIRECTORY / "journal", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def hold(when: str, task, task_id: str, args) -> None:
    flag = DIRECTORY / f"hold-{when}-{task.name}"
    claimed = DIRECTORY / f"held-{when}-{task.name}-{task_id}"
    try:
        if flag.read_text().strip() == "due" and not due(*args):
            return
        os.rename(flag, claimed)  # atomic: one task claims it
    except FileNotFoundError:
        return
    journal(f"held-{when}", task, task_id, args)
    until = time.monotonic() + HOLD_SECONDS
    while time.monotonic() < until and claimed.exists():
        time.sleep(0.05)


def due(game_id: int, bot_id: int, version: int) -> bool:
    from games.models import Game  # the worker has set Django up by the time a task runs

    return Game.objects.filter(pk=game_id, version=version).exists()


@task_prerun.connect
def _started(task_id=None, task=None, args=None, **extra):
    journal("started", task, task_id, args)
    hold("before", task, task_id, args)


@task_postrun.connect
def _ran(task_id=None, task=None, args=None, **extra):
    journal("ran", task, task_id, args)
    hold("after", task, task_id, args)
