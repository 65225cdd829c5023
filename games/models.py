"""The game as rows: a Game with its pool, a Seat per player with board and tray, and the
append-only Event log from which every state can be rebuilt (games/state_store.py,
games/history/replay.py); the players' ratings; the browsers subscribed to Web Push. (The
outbox of emails is below the games: infra/models.py.)

The site changes them only through games/play/actions.py; the tools that make test data
(benchmarks/generate.py) write finished games directly.
"""

import secrets
from datetime import timedelta

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import vacations
from games.rules import DRAFTING, FINISHING
from games.rules.ahead import Queue
from games.timekeeping import Calendar
from infra.words import duration_words

MIN_TIME_PER_MOVE = timedelta(hours=1)
# A player with fewer rated games than this has a provisional rating (games/history/ratings.py).
PROVISIONAL_GAMES = 5
MAX_TIME_PER_MOVE = timedelta(days=14)
# A seat is handed to the server's stand-in after this many timeouts in a row, or in all
# (games/play/leaving.py): the table's settings, their defaults and ranges.
ABANDON_AFTER_ROW, ABANDON_ROW_RANGE = 3, (2, 10)
ABANDON_AFTER_TOTAL, ABANDON_TOTAL_RANGE = 5, (2, 30)
# A Fischer clock's ranges: the starting bank and the cap, and the increment per move.
MIN_FISCHER_BANK, MAX_FISCHER_BANK = timedelta(hours=1), timedelta(days=30)
MIN_FISCHER_INCREMENT, MAX_FISCHER_INCREMENT = timedelta(hours=1), timedelta(days=7)
# The finishing phase's time, when the table chooses one.
MIN_FINISHING_TIME, MAX_FINISHING_TIME = timedelta(hours=1), timedelta(days=14)


def new_invite_token():
    return secrets.token_urlsafe(18)


class Game(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", gettext_lazy("waiting for players")
        PLAYING = "playing", gettext_lazy("in play")
        ENDED = "ended", gettext_lazy("ended")
        CANCELLED = "cancelled", gettext_lazy("cancelled")

    class Access(models.TextChoices):
        OPEN = "open", gettext_lazy("open to anyone")
        INVITATION = "invitation", gettext_lazy("by invitation")

    name = models.CharField(max_length=60, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    player_count = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(2), MaxValueValidator(5)]
    )

    class Clock(models.TextChoices):
        PER_MOVE = "per_move", gettext_lazy("time per move")
        FISCHER = "fischer", gettext_lazy("Fischer")

    # The time control, chosen at creation (docs/rules.md, "Clocks, time controls and
    # vacations"): a fixed time per move, or Fischer's bank (a start, an increment per completed
    # draft, a cap); the finishing phase's own time (None: the time per move, or with Fischer
    # the starting bank); whether the clocks stop on each player's Saturday and Sunday.
    clock = models.CharField(max_length=10, choices=Clock.choices, default=Clock.PER_MOVE)
    time_per_move = models.DurationField()  # with Fischer, the increment
    fischer_bank = models.DurationField(null=True, blank=True)
    fischer_increment = models.DurationField(null=True, blank=True)
    fischer_cap = models.DurationField(null=True, blank=True)
    finishing_time = models.DurationField(null=True, blank=True)
    weekends_off = models.BooleanField(default=False)
    rated = models.BooleanField(default=True)
    access = models.CharField(max_length=12, choices=Access.choices, default=Access.OPEN)
    # Who may see the game: a private table only its players and the people invited to it (its
    # page, socket, replay, and its entries on other people's profiles); a public one anyone.
    private = models.BooleanField(default=False)
    # The table option of seed 002 (the online edition): Finish needs every placed path closed,
    # not only every tile legal (docs/rules.md). Chosen at creation, fixed from then on.
    strict_finish = models.BooleanField(default=False)
    # The table talk (games/chat.py) is its players'; whether people watching may read it too.
    spectators_read_chat = models.BooleanField(default=True)
    # The ended game whose players this table is a rematch of (games/play/again.py).
    rematch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches"
    )
    # Which rematch of its players' series this table is: 0 for a game that is none, 1 for the
    # rematch of a game, 2 for the rematch of that one... Its title says so (`title`).
    rematch_number = models.PositiveSmallIntegerField(default=0)
    # After this many timeouts in a row, or this many in all, a player's seat is handed to the
    # server's easy player, and they are ranked as if they had resigned. Chosen at creation.
    abandon_after_row = models.PositiveSmallIntegerField(
        default=ABANDON_AFTER_ROW,
        validators=[
            MinValueValidator(ABANDON_ROW_RANGE[0]),
            MaxValueValidator(ABANDON_ROW_RANGE[1]),
        ],
    )
    abandon_after_total = models.PositiveSmallIntegerField(
        default=ABANDON_AFTER_TOTAL,
        validators=[
            MinValueValidator(ABANDON_TOTAL_RANGE[0]),
            MaxValueValidator(ABANDON_TOTAL_RANGE[1]),
        ],
    )
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.WAITING)

    # Every accepted change bumps the version; it is the number of the newest Event.
    version = models.PositiveIntegerField(default=0)

    # The rules state that is not a seat's own: set when the game starts.
    seed = models.BigIntegerField(null=True, blank=True)
    pool = models.JSONField(default=dict, blank=True)  # {"columns": [[ids]], "removed": [ids]}
    phase = models.CharField(max_length=12, blank=True)  # drafting / finishing / ended
    current_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    pending_draft = models.JSONField(null=True, blank=True)
    drafts = models.PositiveSmallIntegerField(default=0)
    # The version of the last change to the pool or the turn: a draft made against an older
    # version is stale and refused.
    pool_version = models.PositiveIntegerField(default=0)

    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # When the current turn or the finishing phase began: every clock counts from it.
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # When the current turn (drafting) runs out, or in the finishing phase the earliest of the
    # unfinished seats' own deadlines: the sweep's one index (games/play/clock.py). A turn that
    # begins with a forced take is due at once: the server takes the tile (games.tasks, or the
    # sweep).
    deadline = models.DateTimeField(null=True, blank=True)
    # When the reminder of this turn is due (in the finishing phase: the earliest of the seats'
    # own); cleared once it is sent, and set again when the next turn begins, so there is one
    # reminder a turn.
    remind_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "access", "-created_at"]),
            models.Index(fields=["status", "deadline"]),
            models.Index(fields=["status", "remind_at"]),
            # The lobby's games to watch, the latest turn first (games/selectors.py), read in
            # order and stopped at the page's limit, however many games are in progress.
            models.Index(
                F("turn_started_at").desc(),
                F("started_at").desc(),
                F("id").desc(),
                condition=Q(status="playing"),
                name="games_game_watch",
            ),
            # The sweep's recently ended games still to analyse (games/play/clock.py).
            models.Index(fields=["ended_at"], condition=Q(status="ended"), name="games_game_ended"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(player_count__gte=2, player_count__lte=5),
                name="games_game_player_count_2_to_5",
            ),
        ]

    def __str__(self):
        return self.title

    @property
    def title(self):
        """The table's name for people: its own, or its number; a rematch's says which it is,
        in the reader's language ("Rematch: Friday", "Friday (rematch 2)"), so that two tables
        of the same players never have the same title."""
        name = self.name or f"Game {self.pk}"
        if self.rematch_number == 1:
            # Translators: the title of the rematch of a game named "name".
            return _("Rematch: %(name)s") % {"name": name}
        if self.rematch_number > 1:
            # Translators: the title of the second (third...) rematch of a game named "name".
            return _("%(name)s (rematch %(number)s)") % {
                "name": name,
                "number": self.rematch_number,
            }
        return name

    @property
    def seat_user_ids(self):
        return {seat.user_id for seat in self.seats.all()}

    @property
    def is_waiting(self):
        return self.status == self.Status.WAITING

    @property
    def is_playing(self):
        return self.status == self.Status.PLAYING

    @property
    def is_over(self):
        return self.status in (self.Status.ENDED, self.Status.CANCELLED)

    @property
    def fischer(self) -> bool:
        return self.clock == self.Clock.FISCHER

    @property
    def finishing_period(self) -> timedelta:
        """Each player's time for the final arrangement."""
        if self.finishing_time is not None:
            return self.finishing_time
        return self.fischer_bank if self.fischer else self.time_per_move

    @property
    def time_control(self) -> str:
        """The time control in words, as the lobby and the game page say it."""
        if self.fischer:
            words = _(
                "Fischer clock: %(bank)s to start, +%(increment)s a draft, at most %(cap)s"
            ) % {
                "bank": duration_words(self.fischer_bank),
                "increment": duration_words(self.fischer_increment),
                "cap": duration_words(self.fischer_cap),
            }
        else:
            words = _("%(time)s per move") % {"time": duration_words(self.time_per_move)}
        if self.finishing_time is not None:
            # Translators: a time control, then the time each player has to finish.
            words = _("%(control)s; %(time)s to finish") % {
                "control": words,
                "time": duration_words(self.finishing_time),
            }
        if self.weekends_off:
            # Translators: a time control whose clocks stop on Saturdays and Sundays.
            words = _("%(control)s; weekends off") % {"control": words}
        return words

    def calendar(self, user) -> Calendar:
        """The days on which `user`'s clock at this table runs (games/timekeeping.py)."""
        return Calendar(user.zone, self.weekends_off, vacations.breaks(user))


class Seat(models.Model):
    """A player at a game; after the start, also their board and tray."""

    class Left(models.TextChoices):
        """Why a player left a game that goes on: their seat is played by the server's easy
        player from then on (games/play/leaving.py), and they are ranked after those who stay."""

        # Translators: why a player left a game, shown beside their name: "abandoned" (their
        # time ran out too often), "expelled" (the others voted to hand their seat to the server).
        STAYS = "", gettext_lazy("plays on")
        RESIGNED = "resigned", gettext_lazy("resigned")
        ABANDONED = "abandoned", gettext_lazy("abandoned")  # timed out too often
        EXPELLED = "expelled", gettext_lazy("expelled")  # the others voted after timeouts in a row

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    # Seat order, 0-based; drawn at random when the game starts (join order before).
    number = models.PositiveSmallIntegerField()

    tray = models.JSONField(default=list, blank=True)  # tile ids
    board = models.JSONField(default=list, blank=True)  # 25 spaces: null or [tile id, rotation]
    colours = models.JSONField(default=list, blank=True)  # 25 colour names, row by row
    finished = models.BooleanField(default=False)
    # The arrangements Undo and Redo step to since the player's tiles last changed (rules
    # GameState.undo/redo: each a text "space.tile.rotation,...|tray,...").
    undo = models.JSONField(default=list, blank=True)
    redo = models.JSONField(default=list, blank=True)
    # The version of the last change to this board or tray: an arrangement made against an
    # older version (another tab moved the same tiles) is stale and refused.
    board_version = models.PositiveIntegerField(default=0)
    timeouts = models.PositiveSmallIntegerField(default=0)
    # Timeouts since the player last drafted or finished themselves (abandonment, the vote).
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    # Whether (and why) the player has left the game; the seat stays theirs (their history and
    # rating), its moves made by the server's stand-in. `left_turn` is the rules state's turn of
    # leaving (GameState.left), `left_version` the game's version when they left.
    left = models.CharField(max_length=10, choices=Left.choices, blank=True, default="")
    left_turn = models.PositiveSmallIntegerField(null=True, blank=True)
    left_version = models.PositiveIntegerField(null=True, blank=True)
    # The seat's clock (games/play/clock.py). Fischer: the counting time the player has for
    # their next (or current) turn, as it stood when the turn began. In the finishing phase:
    # when this player's finishing time runs out, and their reminder (None once sent); the
    # game's own deadline and remind_at are the earliest of them.
    bank = models.DurationField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    remind_at = models.DateTimeField(null=True, blank=True)
    # The newest version of the game its player has seen (opened the page, watched it live, or
    # acted): what "since your last visit" starts from.
    seen_version = models.PositiveIntegerField(default=0)
    # The version of the last "your move" the player was sent (email or push): no new one until
    # they have seen the game since (seen_version at least this), one unread a game.
    notified_version = models.PositiveIntegerField(default=0)
    # The notices on the player's page of what happened to them (a forced take, a timeout, the
    # finishing deadline) are those of later versions: dismissing them moves this on.
    dismissed_version = models.PositiveIntegerField(default=0)
    # The newest message of the table talk its player has read (its id, games/chat.py): the
    # others' newer ones are their unread messages.
    chat_read = models.PositiveBigIntegerField(default=0)
    # Drafting ahead (games/rules/ahead.py), private to the player: {"tiles": [tile ids, best
    # first], "confirm": whether to confirm the draft too}, and once their turn began with a
    # queue, what it did then: "took" (a tile, or null: none was left) "at" that version.
    queued_draft = models.JSONField(null=True, blank=True)

    # Filled in when the game ends.
    score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    chip_tiles = models.PositiveSmallIntegerField(null=True, blank=True)
    chip_value = models.PositiveSmallIntegerField(null=True, blank=True)
    penalty_tiles = models.PositiveSmallIntegerField(null=True, blank=True)

    # The post-game analysis (games/history/analysis.py), stored by a task after the game ends:
    # the best score this seat's final tiles could have made, that board (25 spaces: null or
    # [tile id, rotation]) and whether the solver proved it optimal within its time limit.
    best_score = models.IntegerField(null=True, blank=True)
    best_board = models.JSONField(null=True, blank=True)
    best_optimal = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="games_seat_one_per_player"),
            models.UniqueConstraint(fields=["game", "number"], name="games_seat_unique_number"),
        ]
        indexes = [
            # What the sweep finds stalled (games/play/clock.py `stalled_bots`): the computer
            # players' seats and those of players who left, at games not over, so that it reads
            # those and not every seat stored. (A seat finishes when its game ends, except at a
            # game concluded because every player left: a few stay here.)
            models.Index(
                fields=["user"], condition=Q(finished=False), name="games_seat_unfinished"
            ),
            models.Index(
                fields=["game"], condition=Q(finished=False) & ~Q(left=""), name="games_seat_left"
            ),
        ]

    def __str__(self):
        return f"{self.user} at {self.game}"

    @property
    def may_be_voted_out(self) -> bool:
        """Whether the others may vote to hand this seat to the server now: its player, a
        person still playing, has timed out at least ExpelVote.AFTER times in a row."""
        return self.timeouts_in_row >= ExpelVote.AFTER and not self.left and not self.user.is_bot

    @property
    def queue(self) -> Queue:
        """The player's queued draft for their next turn (empty if none)."""
        return Queue.from_json(self.queued_draft)

    @property
    def clock_deadline(self):
        """When this player's time runs out, while the game waits for them (else None)."""
        game = self.game
        if not game.is_playing:
            return None
        if game.phase == FINISHING:
            return None if self.finished else self.deadline
        return game.deadline if game.current_seat == self.number else None


def waiting_for_move() -> Q:
    """The seats (a filter on Seat) whose player's move their game waits for: the player drafts,
    or has still to finish, and has not left the game (the server plays a seat that left). The
    rules' `GameState.waits_for` is the same rule on a state in memory, for every seat."""
    return _waits() & Q(left="")


def waiting_for_stand_in() -> Q:
    """The seats (a filter on Seat) whose move the server's stand-in owes their game."""
    return _waits() & ~Q(left="")


def _waits() -> Q:
    return Q(game__status=Game.Status.PLAYING) & (
        Q(game__phase=DRAFTING, game__current_seat=F("number"))
        | Q(game__phase=FINISHING, finished=False)
    )


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


class ExpelVote(models.Model):
    """One player's vote to hand another's seat to the server after that player's timeouts in
    a row (games/play/leaving.py). Gone when that player moves again or leaves."""

    # The vote on a player's seat opens at this many timeouts in a row (Board Game Arena's).
    AFTER = 2

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


class Invitation(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="games_invitation_once"),
        ]

    def __str__(self):
        return f"{self.user} invited to {self.game}"


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


class PushSubscription(models.Model):
    """One browser that asked for Web Push messages (the settings page, on that device): where its
    push service takes them (`endpoint`) and the keys to encrypt them for it (RFC 8291). A push
    service that answers 404 or 410 for it has forgotten it, and so does the site
    (games/notices/webpush.py)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    # One an account and endpoint: another account that posts the same endpoint gets one of its
    # own, never this one (issue 34: it was found by its endpoint alone, and taken over).
    endpoint = models.URLField(max_length=1000)
    p256dh = models.CharField(max_length=200)  # the browser's public key, base64url
    auth = models.CharField(max_length=100)  # the shared authentication secret, base64url
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "endpoint"], name="games_pushsubscription_one_per_account"
            )
        ]

    def __str__(self):
        return f"push subscription {self.pk} of user {self.user_id}"

    @property
    def info(self) -> dict:
        """The subscription as the Push API's PushSubscription.toJSON() says it (pywebpush)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
