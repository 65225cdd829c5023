from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Game


class Guide(models.Model):
    """A player's guided first game (games/first_visit/tutorial.py), or, without a game, their
    "no thanks" to the offer of one. The steps themselves are read from the game's state and
    events; only what the state cannot say is kept here: the guide put away, the score seen."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="guides"
    )
    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, null=True, blank=True, related_name="guide"
    )
    skipped = models.BooleanField(default=False)
    score_seen = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "-created_at"], name="first_visit_guide_player")]

    def __str__(self):
        return f"guide of {self.player_id} in {self.game_id}"
