"""A game and its seats: the table's settings, the pool, whose turn it is and the clocks (Game);
each player's board, tray, clock and result (Seat); which seats a game waits for."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
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
# The vote on a player's seat (games/models/votes.py ExpelVote) opens at this many timeouts in a
# row (Board Game Arena's).
VOTE_OPENS_AFTER = 2


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
    # The pool's layout (games/rules/deal.py): the rules' standard deal, or the short one of the
    # guided first game (games/first_visit/tutorial.py). Set before the start, fixed from then on;
    # the start event records it, so every reader of the past deals the same pool.
    layout = models.CharField(max_length=10, default="standard")
    # The table talk (games/chat.py) is its players'; whether people watching may read it too.
    spectators_read_chat = models.BooleanField(default=True)
    # The ended game whose players this table is a rematch of (games/play/rematches.py).
    rematch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches"
    )
    # Which rematch of its players' series this table is: 0 for a game that is none, 1 for the
    # rematch of a game, 2 for the rematch of that one... Its title says so (`title`).
    rematch_number = models.PositiveSmallIntegerField(default=0)
    # The tournament round this game is a table of (games/tournaments/), if any: the site
    # seated its players, and its end tells the tournament (by a task, by name: the games know
    # nothing of tournaments but this row's id).
    tournament_round = models.ForeignKey(
        "tournaments.Round",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="games",
    )
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
            # The lobby's games to watch, the latest turn first (games/lobby.py), read in
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
        person still playing, has timed out at least VOTE_OPENS_AFTER times in a row."""
        return self.timeouts_in_row >= VOTE_OPENS_AFTER and not self.left and not self.user.is_bot

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
