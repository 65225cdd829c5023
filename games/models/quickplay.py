"""Quick play: the players waiting to be paired."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone


class QuickPlaySeek(models.Model):
    """A player asking for a game by quick play (games/play/quickplay.py): how many players, the
    time per move, rated or not. At most one a player; it goes when they are paired (their game
    starts) or cancel."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quick_play_seek"
    )
    player_count = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(2), MaxValueValidator(5)]
    )
    time_per_move = models.DurationField()
    rated = models.BooleanField(default=True)
    rating = models.IntegerField()  # the player's displayed rating when they asked
    created_at = models.DateTimeField(default=timezone.now)
    # A seek made through the API while the player held a stream open lasts while they hold
    # one: each stream's check renews it, the last stream to close cancels it, and one not
    # renewed in time (its process died) is never paired. None: until paired or cancelled.
    held_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["created_at"], name="games_seek_oldest_first")]

    def __str__(self):
        return f"{self.user_id} seeks {self.player_count} at {self.time_per_move}"
