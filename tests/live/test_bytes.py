"""Bytes per answer and push (issue 21): a move's answer and each push carry only what changed."""

import pytest

from tests.games.test_views import create_and_fill

from .measuring import play_and_weigh

pytestmark = pytest.mark.django_db


def test_figures(players, monkeypatch):
    game = create_and_fill(players, 3)
    weighed = play_and_weigh(game, monkeypatch)
    print()
    print(weighed.table())
