from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.bots import new_bot
from games.tournaments import actions


@pytest.fixture(autouse=True)
def _quick_bots(settings):
    """Computer players act at once (eager tasks: a round's games play out after its commit)."""
    settings.BOT_MOVE_DELAY = 0
    settings.BOT_STRONG_OPTIONS = {
        "draft_time": 0.02,
        "arrange_time": 0.02,
        "finish_time": 0.1,
        "deny": 0.5,
    }
    settings.ANALYSIS_TIME_LIMIT = 0.2


@pytest.fixture
def bots(db):
    """`bots(n)`: n computer players (easy ones first, then strong ones)."""

    def make(count):
        return [new_bot("easy" if index < 99 else "strong") for index in range(count)]

    return make


@pytest.fixture
def open_tournament(make_player):
    """`open_tournament(**settings)`: a tournament opened by its own organiser, starting in an
    hour, with settings a test may change."""
    count = [0]

    def make(organiser=None, **options):
        count[0] += 1
        organiser = organiser or make_player(f"organiser{count[0]}")
        options.setdefault("starts_at", timezone.now() + timedelta(hours=1))
        options.setdefault("name", f"Spring cup {count[0]}")
        options.setdefault("min_players", 2)
        return actions.create_tournament(organiser=organiser, **options)

    return make


@pytest.fixture(autouse=True)
def _no_analysis(lost_tasks):
    """The post-game solver (seconds a game) is not what these tests are about."""
    lost_tasks("games.analyse_game")
