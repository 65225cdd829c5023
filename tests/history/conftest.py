import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Seat


@pytest.fixture
def ended_game(db):
    """Return a function that makes an ended game's rows directly: `places` by player.

    For the pages and the ratings, which read results, not boards; games played move by move
    are made with `start_game` and tests/history/playing.py.
    """
    counter = {"ended": timezone.now() - timedelta(days=30)}

    def make(results, *, rated=True, status=Game.Status.ENDED, timeouts=None):
        """`results`: [(user, place, score, chip_tiles, chip_value)] in seat order."""
        counter["ended"] += timedelta(minutes=5)
        ended = counter["ended"] if status == Game.Status.ENDED else None
        game = Game.objects.create(
            created_by=results[0][0],
            player_count=len(results),
            time_per_move=timedelta(days=1),
            rated=rated,
            status=status,
            phase="ended" if status == Game.Status.ENDED else "drafting",
            seed=random.Random(len(results)).randrange(2**40),
            started_at=counter["ended"] - timedelta(hours=3),
            ended_at=ended,
        )
        for number, (user, place, score, chip_tiles, chip_value) in enumerate(results):
            Seat.objects.create(
                game=game,
                user=user,
                number=number,
                place=place,
                score=score,
                chip_tiles=chip_tiles,
                chip_value=chip_value,
                penalty_tiles=0 if place is None else 3,
                finished=status == Game.Status.ENDED,
                timeouts=(timeouts or {}).get(user.username, 0),
            )
        return game

    return make
