"""Storing a game's review: the one state change of games/review/, in the style of
games/play/actions/. The engine's slow work is done before, outside any lock
(games/review/compute.py); this locks the game row, checks, and writes the review once.

Two workers that reviewed the same game at once both arrive here: the second finds the first's
review under the lock and stores nothing (the primary key on the game is the last guard)."""

from django.db import transaction

from games.models import Game
from games.review.compute import Found
from games.review.models import GameReview


def record_review(*, game_id: int, found: Found) -> GameReview | None:
    """Store the review of the finished game `game_id`; None (nothing written) when the game
    has not ended, is gone, or was reviewed already."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != Game.Status.ENDED:
            return None
        if GameReview.objects.filter(game_id=game_id).exists():
            return None
        return GameReview.objects.create(
            game_id=game_id,
            drafts=found.drafts,
            hindsight=found.hindsight,
            complete=found.complete,
            cpu_seconds=found.cpu_seconds,
        )
