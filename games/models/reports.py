"""Players' reports of other players and of their messages."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from .chat import ChatMessage
from .game import Game


class Report(models.Model):
    """A player's report of another player, or of one of their table-talk messages, for the
    admin to look into (games/play/reports.py; the admin shows it with the game, its talk and
    its moves)."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", gettext_lazy("Abuse or harassment")
        SPAM = "spam", gettext_lazy("Spam or advertising")
        CHEATING = "cheating", gettext_lazy("Cheating or playing unfairly")
        NAME = "name", gettext_lazy("An offensive name")
        OTHER = "other", gettext_lazy("Something else")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_about"
    )
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL)
    message = models.ForeignKey(
        ChatMessage, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    reason = models.CharField(max_length=12, choices=Reason.choices)
    details = models.TextField(max_length=1000, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["resolved_at", "-created_at"], name="games_report_queue")]

    def __str__(self):
        return f"Report #{self.pk} of {self.reported_id} by {self.reporter_id}"
