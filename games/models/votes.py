"""Votes to hand a player's seat to the server."""

from django.conf import settings
from django.db import models

from .game import VOTE_OPENS_AFTER, Game, Seat


class ExpelVote(models.Model):
    """One player's vote to hand another's seat to the server after that player's timeouts in
    a row (games/play/leaving.py). Gone when that player moves again or leaves."""

    AFTER = VOTE_OPENS_AFTER

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="expel_votes")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="expel_votes")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["seat", "voter"], name="games_expel_vote_once"),
        ]

    def __str__(self):
        return f"{self.voter} votes to expel {self.seat}"


def electorate(seats, target: Seat) -> list[Seat]:
    """Who votes on `target`'s seat: the other people still playing (no computer player)."""
    return [s for s in seats if s.pk != target.pk and not s.left and not s.user.is_bot]


def votes_needed(voters: int) -> int:
    """A strict majority of `voters`."""
    return voters // 2 + 1
