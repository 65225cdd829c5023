from django.db import models


class GameReview(models.Model):
    """The engine's review of a finished game, stored once (games/review/storing.py).

    `drafts` is the rules review's JSON (games/rules/review.py `GameReview.to_json`, version 1:
    every chosen draft with the tile taken, the engine's choice, their values, the value lost,
    every seat's expected final score after it; per seat the accuracy and the biggest
    mistakes); `hindsight` the list of every seat's hindsight (`Hindsight.to_json`).
    `cpu_seconds` is what the task spent (both), `complete` whether the CPU budget let every
    draft have the full budget."""

    game = models.OneToOneField(
        "games.Game", on_delete=models.CASCADE, primary_key=True, related_name="engine_review"
    )
    drafts = models.JSONField()
    hindsight = models.JSONField(default=list)
    complete = models.BooleanField(default=True)
    cpu_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "engine review"

    def __str__(self):
        return f"review of game {self.game_id}"
