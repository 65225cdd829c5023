"""The append-only event log of a game, from which every state can be rebuilt
(games/rules/replay.py)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy

from .game import Game


class Event(models.Model):
    """One accepted change to a game. Never updated or deleted: the game's history."""

    class Cause(models.TextChoices):
        PLAYER = "player", gettext_lazy("by the player")
        FORCED_TAKE = "forced_take", gettext_lazy("last tile of the column")
        TIMEOUT = "timeout", gettext_lazy("time ran out")
        DEADLINE = "deadline", gettext_lazy("finishing time ran out")
        # Leaving (games/play/leaving.py): a resignation is the player's own (PLAYER).
        ABANDONED = "abandoned", gettext_lazy("timed out too often")
        EXPELLED = "expelled", gettext_lazy("the others voted")
        STAND_IN = "stand_in", gettext_lazy("played by the server for a player who left")
        ALL_LEFT = "all_left", gettext_lazy("no player left")
        QUEUED = "queued", gettext_lazy("drafted ahead by the player")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    number = models.PositiveIntegerField()  # the game's version after this event
    kind = models.CharField(max_length=20)  # a rules action type, or created/joined/left/started
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    cause = models.CharField(max_length=12, choices=Cause.choices, default=Cause.PLAYER)
    action = models.JSONField(null=True, blank=True)  # the rules action, for replay
    data = models.JSONField(default=dict, blank=True)  # lobby details (e.g. the start's seed)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="games_event_unique_number"),
        ]

    def __str__(self):
        return f"{self.game} #{self.number} {self.kind}"
