"""Ratings: each player's current one, and its change after each rated game."""

from django.conf import settings
from django.db import models

from .game import PROVISIONAL_GAMES, Game


class Rating(models.Model):
    """A player's current OpenSkill rating (games/history/ratings.py writes it when a rated game
    ends).

    `mu` and `sigma` are the model's belief about the player's skill; `display` is the
    conservative figure shown on pages, kept here so the leaderboard can sort on an index.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    mu = models.FloatField()
    sigma = models.FloatField()
    display = models.IntegerField()
    games = models.PositiveIntegerField(default=0)  # rated games played
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["-display", "games"], name="games_rating_board")]

    def __str__(self):
        return f"{self.user}: {self.display}"

    @property
    def provisional(self):
        return self.games < PROVISIONAL_GAMES


class RatingChange(models.Model):
    """One player's rating before and after one rated game: the history the charts draw.

    Unique per (game, user): a game's ending can be processed twice, it is rated once.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    display_before = models.IntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    display = models.IntegerField()
    games = models.PositiveIntegerField()  # the player's rated games, this one included
    created_at = models.DateTimeField()  # when the game ended

    class Meta:
        ordering = ["user", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="games_rating_change_once"),
        ]
        indexes = [models.Index(fields=["user", "created_at"], name="games_rating_change_user")]

    def __str__(self):
        return f"{self.user} {self.display_before} -> {self.display} after {self.game}"

    @property
    def delta(self):
        return self.display - self.display_before
