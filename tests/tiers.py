"""The two tiers of slow tests, marked where they are written (pyproject.toml registers both):

- `servers`: the test starts a server, a browser, a worker or a tool of its own as a process
  (daphne, gunicorn, Celery, `manage.py up`, Chromium, a live server, pg_dump, pip);
- `slow`: slow by measurement, 3 seconds or more (`--durations=0` finds them), in this process
  or with one short child process.

`manage.py test --fast` leaves both out. A fixture that starts such processes says so
(`@starts_processes`, under `@pytest.fixture`); a test that uses one, directly or through
other fixtures, fails at once unless it is marked `servers` (or `slow`): a forgotten mark
cannot put seconds of servers into the fast tier unseen.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest

TIERS = ("servers", "slow")


@dataclass(frozen=True)
class Starter:
    what: str
    where: str  # the module that defines the fixture, for the message


# By name: a fixture is found wherever it is used, also where another conftest imports it
# (tests/scale uses tests/tasks' worker).
_starters: dict[str, list[Starter]] = {}


def declare(name: str, what: str, where: str) -> None:
    _starters.setdefault(name, []).append(Starter(what, where))


def starts_processes(what: str) -> Callable:
    """Declare the fixture below as one that starts `what` (e.g. "daphne and a Celery worker")."""

    def declared(fixture):
        declare(fixture.__name__, what, fixture.__module__)
        return fixture

    return declared


# pytest-django's server, in a thread of this process, but a server all the same.
declare("live_server", "a live server", "pytest_django.fixtures")


def processes_started_unmarked(item) -> list[str]:
    """What the test `item` starts through its fixtures, if it is marked neither `servers` nor
    `slow` (else nothing)."""
    if any(item.get_closest_marker(tier) for tier in TIERS):
        return []
    return [
        f"{starter.what} (`{name}`, {starter.where})"
        for name in getattr(item, "fixturenames", ())
        for starter in _starters.get(name, ())
    ]


def refuse_unmarked(item) -> None:
    started = processes_started_unmarked(item)
    if started:
        pytest.fail(
            f"{item.nodeid} starts {' and '.join(started)} but is not marked `servers`: put "
            "`pytestmark = pytest.mark.servers` at the top of its file (or "
            "`@pytest.mark.servers` on the test), so that `manage.py test --fast` leaves it out.",
            pytrace=False,
        )
