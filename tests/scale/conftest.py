"""Fixtures for the scale-out tests: bots and a real Celery worker (shared with their packages),
and daphne processes on the test database (tests/scale/servers.py)."""

from tests.bots.conftest import bot  # noqa: F401 (fixture)
from tests.tasks.conftest import celery_worker_process  # noqa: F401 (fixture)
