"""A tournament as rows: the Tournament with its organiser's settings, an Entry per registered
player, the Rounds, and each player's Pairing in a round (their game, or a bye). A round's games
are ordinary games (games.models.Game) that say which round they belong to
(`Game.tournament_round`).

Only games/tournaments/actions/ changes them. The pairing, the schedules and the standings
are the pure modules beside this one (docs/tournaments.md).
"""

import secrets
from datetime import timedelta
from fractions import Fraction

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy

from .formats import MAX_TABLE, MIN_TABLE, PlacePoints, RoundRobinFormat, SwissFormat

# The organiser's ranges (the form and the action check them).
MAX_ROUNDS = 15
ROUND_TIME_RANGE = (timedelta(days=1), timedelta(days=120))
PLAYERS_RANGE = (2, 1000)
SECTION_SIZE_RANGE = (3, 20)


def new_invite_token():
    return secrets.token_urlsafe(18)


def new_seed():
    return secrets.randbits(62)


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss", gettext_lazy("Swiss")
        ROUND_ROBIN = "round_robin", gettext_lazy("Round-robin sections")

    class Status(models.TextChoices):
        OPEN = "open", gettext_lazy("registration open")
        RUNNING = "running", gettext_lazy("in play")
        FINISHED = "finished", gettext_lazy("finished")
        CANCELLED = "cancelled", gettext_lazy("cancelled")

    class Access(models.TextChoices):
        PUBLIC = "public", gettext_lazy("open to anyone")
        INVITATION = "invitation", gettext_lazy("by invitation")

    class Seeding(models.TextChoices):
        RATING = "rating", gettext_lazy("by rating")
        DRAW = "draw", gettext_lazy("by draw")

    class Ending(models.TextChoices):
        """Why a tournament that never started was called off, or ended early."""

        NONE = "", ""
        TOO_FEW = "too_few", gettext_lazy("too few players registered")
        ORGANISER = "organiser", gettext_lazy("called off by its organiser")
        # A Swiss that ended before its last round: fewer than two players were left to pair.
        NONE_LEFT = "none_left", gettext_lazy("too few players left to pair")

    name = models.CharField(max_length=48)
    description = models.TextField(max_length=1000, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_tournaments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    format = models.CharField(max_length=12, choices=Format.choices, default=Format.SWISS)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    access = models.CharField(max_length=12, choices=Access.choices, default=Access.PUBLIC)
    table_size = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(MIN_TABLE), MaxValueValidator(MAX_TABLE)]
    )
    # Swiss: the number of rounds. Round robin: the games each player plays in their section
    # (None: the fewest in which every pair can meet).
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    section_size = models.PositiveSmallIntegerField(null=True, blank=True)  # round robin
    # Points per place for each table size, as fractions in words: {"2": ["1", "0"], ...}.
    place_points = models.JSONField(default=dict, blank=True)
    bye_points = models.CharField(max_length=12, blank=True)  # "" a win's points
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    # The draw's seed (seeding by draw, the round-robin schedules): the seeding can be checked.
    seed = models.BigIntegerField(default=new_seed)
    min_players = models.PositiveSmallIntegerField(default=2)
    max_players = models.PositiveSmallIntegerField(default=100)
    starts_at = models.DateTimeField()
    # Swiss: a round's deadline is this long after it starts; the next round starts then even
    # if games of it go on (they count when they end). Round robin: when the sections should
    # be over (their games go on under their clocks all the same).
    round_time = models.DurationField(default=timedelta(days=21))

    # The table settings every game of the tournament has (games.models.Game's own).
    clock = models.CharField(max_length=10, default="per_move")
    time_per_move = models.DurationField(default=timedelta(days=1))
    fischer_bank = models.DurationField(null=True, blank=True)
    fischer_increment = models.DurationField(null=True, blank=True)
    fischer_cap = models.DurationField(null=True, blank=True)
    finishing_time = models.DurationField(null=True, blank=True)
    weekends_off = models.BooleanField(default=False)
    rated = models.BooleanField(default=True)
    strict_finish = models.BooleanField(default=False)

    # Who may enter (docs/tournaments.md, "Entering"): the fewest rated games, a rating range,
    # the most timeouts in the last 90 days (None: no limit).
    min_rated_games = models.PositiveSmallIntegerField(default=0)
    min_rating = models.IntegerField(null=True, blank=True)
    max_rating = models.IntegerField(null=True, blank=True)
    max_timeouts = models.PositiveSmallIntegerField(null=True, blank=True)
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)

    # The last round made (Swiss); round robin: every round is made at the start.
    round = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    ending = models.CharField(max_length=10, choices=Ending.choices, blank=True, default="")
    # When the entrants were told it starts soon (once).
    soon_told_at = models.DateTimeField(null=True, blank=True)
    # Bumped by every change an open page shows (an entry, a game's end, a round): the live
    # page redraws when it moves on.
    version = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["status", "starts_at"], name="tournaments_by_start"),
            models.Index(fields=["status", "-created_at"], name="tournaments_listed"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=MIN_TABLE, table_size__lte=MAX_TABLE),
                name="tournaments_table_size_2_to_5",
            ),
            models.CheckConstraint(
                condition=Q(min_players__gte=2, max_players__gte=models.F("min_players")),
                name="tournaments_players_range",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def is_swiss(self) -> bool:
        return self.format == self.Format.SWISS

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)

    @property
    def points(self) -> PlacePoints:
        return PlacePoints(
            {
                int(size): tuple(Fraction(value) for value in row)
                for size, row in self.place_points.items()
            }
        )

    @property
    def bye_value(self) -> Fraction:
        return Fraction(self.bye_points) if self.bye_points else self.points.win

    @property
    def swiss_format(self) -> SwissFormat:
        return SwissFormat(self.rounds or 1, self.table_size, self.points, self.bye_value)

    @property
    def round_robin_format(self) -> RoundRobinFormat:
        return RoundRobinFormat(self.section_size or 12, self.table_size, self.points, self.rounds)

    @property
    def fischer(self) -> bool:
        return self.clock == "fischer"

    def game_settings(self) -> dict:
        """The settings of each of its games, as games/play/actions/tables.py `create_game`
        takes them."""
        return {
            "clock": self.clock,
            "time_per_move": self.time_per_move,
            "fischer_bank": self.fischer_bank,
            "fischer_increment": self.fischer_increment,
            "fischer_cap": self.fischer_cap,
            "finishing_time": self.finishing_time,
            "weekends_off": self.weekends_off,
            "rated": self.rated,
            "strict_finish": self.strict_finish,
        }


class Entry(models.Model):
    """A player registered for a tournament. Before the start, withdrawing deletes it; after,
    it stays (their games count) and `withdrawn_at` says they are paired no more."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries"
    )
    registered_at = models.DateTimeField(auto_now_add=True)
    # Set at the start: the place in the seeding (0 the top seed), the rating it was made
    # from, and in a round robin the section (0 is A).
    seed = models.PositiveIntegerField(null=True, blank=True)
    rating = models.IntegerField(null=True, blank=True)
    section = models.PositiveSmallIntegerField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    # Set when the tournament ends: the final place (shared places alike) and points.
    place = models.PositiveIntegerField(null=True, blank=True)
    points = models.CharField(max_length=16, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournaments_entry_once"),
        ]
        indexes = [models.Index(fields=["user", "-registered_at"], name="tournaments_entries_of")]

    def __str__(self):
        return f"{self.user} in {self.tournament}"

    @property
    def points_value(self) -> Fraction:
        return Fraction(self.points) if self.points else Fraction(0)

    @property
    def section_letter(self) -> str:
        return chr(ord("A") + self.section) if self.section is not None else ""


class Invitation(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_invitations"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"], name="tournaments_invitation_once"
            ),
        ]

    def __str__(self):
        return f"{self.user} invited to {self.tournament}"


class Round(models.Model):
    """One round of a Swiss, or one round of the schedules of a round robin's sections (all
    made at the start)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="played_rounds"
    )
    number = models.PositiveSmallIntegerField()  # from 1
    started_at = models.DateTimeField()
    deadline = models.DateTimeField(null=True, blank=True)
    # Prior meetings of the pairs seated together, and the fewest any seating could have had
    # (Swiss; docs/tournaments.md).
    repeats = models.PositiveIntegerField(default=0)
    repeat_bound = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="tournaments_round_once"),
        ]

    def __str__(self):
        return f"{self.tournament} round {self.number}"


class Pairing(models.Model):
    """A player's place in a round: their game, or (game None) a bye. One a player and round,
    which the database holds: nobody is seated twice in a round, whatever runs at once."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    table = models.PositiveSmallIntegerField(null=True, blank=True)  # from 1, best table first

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "user"], name="tournaments_pairing_once"),
        ]

    def __str__(self):
        return f"{self.user} in {self.round}"

    @property
    def bye(self) -> bool:
        return self.game_id is None
