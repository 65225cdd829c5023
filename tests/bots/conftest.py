from datetime import timedelta

import pytest

from accounts.bots import new_bot
from accounts.models import User


@pytest.fixture(autouse=True)
def _quick_bots(settings):
    """Bots act at once and think briefly (the analysis's short limit is the suite's,
    tests/conftest.py)."""
    settings.BOT_MOVE_DELAY = 0
    settings.BOT_STRONG_OPTIONS = {
        "draft_time": 0.05,
        "arrange_time": 0.05,
        "finish_time": 0.2,
        "deny": 0.5,
    }


@pytest.fixture
def bot(db):
    """Return the n-th bot account of a level (a transactional test's flush removes the ones the
    migration made: they are made again as the platform would)."""

    def get(level, n=1):
        existing = list(User.objects.filter(bot_level=level).order_by("pk"))
        while len(existing) < n:
            existing.append(new_bot(level))
        return existing[n - 1]

    return get


DAY = timedelta(days=1)
