from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy


class Puzzle(models.Model):
    """A puzzle cut from a finished game (games/rules/puzzles.py): its id is the rules
    package's (a hash of its content, so the same position is one puzzle however often it is
    cut), `data` its JSON (`to_json`). Rated like a player (OpenSkill: a try is a game between
    the player and the puzzle), so the site can offer each player puzzles near their rating."""

    class Kind(models.TextChoices):
        ARRANGEMENT = "arrangement", pgettext_lazy("a kind of puzzle", "arrangement")
        DRAFTING = "drafting", pgettext_lazy("a kind of puzzle", "drafting")

    id = models.CharField(max_length=16, primary_key=True)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    data = models.JSONField()
    themes = models.JSONField(default=list, blank=True)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="puzzles"
    )
    mu = models.FloatField()
    sigma = models.FloatField()
    display = models.IntegerField(db_index=True)
    tries = models.PositiveIntegerField(default=0)
    solves = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.kind} puzzle {self.id}"


class PuzzleAttempt(models.Model):
    """A player's try at a puzzle: one per player and puzzle. An arrangement puzzle's board and
    tray as the player left them (with their Undo and Redo, as a seat's), its `version` moving
    on with every change (a change made against an older one is stale); once submitted, the
    verdict and what it did to the player's rating."""

    class Status(models.TextChoices):
        OPEN = "open", gettext_lazy("in progress")
        SOLVED = "solved", gettext_lazy("solved")
        MISSED = "missed", gettext_lazy("missed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_attempts"
    )
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="attempts")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    board = models.JSONField(default=list, blank=True)  # 25 spaces: null or [tile, rotation]
    tray = models.JSONField(default=list, blank=True)
    undo = models.JSONField(default=list, blank=True)
    redo = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=0)
    # The answer: the board's score (arrangement) or the tile drafted and its value (drafting).
    answer = models.JSONField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    rating_before = models.IntegerField(null=True, blank=True)
    rating_after = models.IntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "puzzle"], name="puzzles_one_attempt_each"),
        ]
        indexes = [
            models.Index(
                fields=["user", "-submitted_at"],
                condition=Q(submitted_at__isnull=False),
                name="puzzles_history",
            ),
        ]

    def __str__(self):
        return f"{self.user_id} on {self.puzzle_id}: {self.status}"

    @property
    def submitted(self) -> bool:
        return self.status != self.Status.OPEN


class PuzzleRating(models.Model):
    """A player's puzzle rating (OpenSkill, as games/history/ratings.py rates games, on the
    same scale), their streak of puzzles solved in a row, and counts."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="puzzle_rating",
    )
    mu = models.FloatField()
    sigma = models.FloatField()
    display = models.IntegerField()
    tried = models.PositiveIntegerField(default=0)
    solved = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)
    best_streak = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.user_id}: {self.display}"
