"""The table talk."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from .game import Game


class ChatMessage(models.Model):
    """A line of a game's table talk (games/chat.py), plain text as its author wrote it. One its
    author deletes (within CHAT_DELETE_MINUTES) is shown to nobody from then on, but kept for
    the admin: a report may be about it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages"
    )
    text = models.CharField(max_length=500)
    # The game's version when it was written: where the replay shows it.
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["game", "id"], name="games_chat_by_game")]

    def __str__(self):
        return f"{self.game} chat #{self.pk} by {self.author_id}"
