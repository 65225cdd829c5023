import zoneinfo
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from infra.selects import Select, row_by_pk

from .names import keys_to_refuse, name_key

# The areas of the time zone database's own names ("Europe/Madrid"): the zones a person lives
# in. The rest of what the system knows are aliases kept for old software ("US/Pacific", "GB",
# "EST5EDT", "Etc/GMT+5") or no zone at all ("Factory", the machine's "localtime").
AREAS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
         "Indian", "Pacific")  # fmt: skip


def time_zone_choices():
    """The time zones a player may choose: UTC, and every zone of the database named by its
    area, as people look for theirs."""
    names = sorted(
        name
        for name in zoneinfo.available_timezones()
        if name.split("/", 1)[0] in AREAS and "/" in name
    )
    return [("UTC", "UTC"), *((name, name.replace("_", " ")) for name in names)]


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    """The time zone of that name, or UTC for a name this machine does not know (the zone data
    changes between machines and years; a saved name must never break a page or an email)."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


class Players(UserManager):
    def get(self, *args, **kwargs):
        """`User.objects.get(pk=...)`, the signed-in player's read on every request (Django's
        authentication backend reads them so from the session), is one select written once
        (infra/selects.py): compiling the queryset for the user's 36 columns cost 0.43 ms of
        CPU a request against 0.14 ms (issue 36). Every other lookup is the queryset's."""
        if args or kwargs.keys() != {"pk"} or self._db is not None:
            return super().get(*args, **kwargs)
        try:
            rows, columns, db = _user_by_pk.rows(kwargs["pk"])
        except (TypeError, ValueError):  # not a whole number: the queryset says how
            return super().get(*args, **kwargs)
        if not rows:
            raise self.model.DoesNotExist(
                f"{self.model._meta.object_name} matching query does not exist."
            )
        return columns[0].make(db.alias, db, rows[0])

    def named(self, name: str):
        """The account called `name` whatever its case, found by the index of the lowered names
        (the constraint below): ``username__iexact`` compares UPPER() and reads every account.
        A name with a NUL character names nobody: no username holds one, and PostgreSQL refuses
        it in a query (the API's fields, unlike Django's forms, let it through)."""
        if "\x00" in name:
            return self.none()
        return self.alias(lowered=Lower("username")).filter(lowered=Lower(Value(name)))


def _user_by_pk_sql(connection):
    sql, user = row_by_pk(User, "player", connection)
    return sql, (user,)


_user_by_pk = Select(_user_by_pk_sql)


class User(AbstractUser):
    """A player: an account plus the preferences that shape their pages and their email."""

    objects = Players()

    class BotLevel(models.TextChoices):
        EASY = "easy", pgettext_lazy("a computer player's level", "easy")
        STRONG = "strong", pgettext_lazy("a computer player's level", "strong")
        EXPERT = "expert", pgettext_lazy("a computer player's level", "expert")

    # A computer player (games/bots/turns.py plays its moves); null for people. Bot accounts are
    # made by a migration or accounts/bots.py, have no email and cannot log in.
    bot_level = models.CharField(  # noqa: DJ001 (null, not "", for people: a nullable choice)
        max_length=10, choices=BotLevel.choices, null=True, blank=True, default=None
    )
    # A bot account: a player's own program plays it through the public API (games/api/);
    # accounts/api_bots.py makes them, with no email and no password. Not a computer player:
    # its bot_level stays null and the server never plays its moves. PROTECT, not CASCADE: an
    # account is closed (is_active), never deleted, on this site, and a seat keeps its player
    # (PROTECT too), so deleting an owner must not quietly reach for the bots' games.
    bot_owner = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bots",
        verbose_name=_("bot account run by"),
    )

    # A guest (accounts/guests.py): a temporary account made by "Play now" for a visitor,
    # signed in at once, unrated and unlisted, fenced off from everything but their own games;
    # sign-up turns it into a player (the same row, so its games stay), else it is removed when
    # the guest logs out or after GUEST_DAYS (games/first_visit/guests.py).
    is_guest = models.BooleanField(default=False, editable=False)

    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC", choices=time_zone_choices
    )
    # The language of the player's pages and emails ("": their browser's, English for emails).
    language = models.CharField(
        max_length=8,
        verbose_name=_("language"),
        choices=[("", _("as my browser says")), *settings.LANGUAGES],
        blank=True,
        default="",
        help_text=_("The language of your pages and your emails."),
    )
    colour_blind = models.BooleanField(
        _("colour-blind shapes"),
        default=False,
        help_text=_(
            "Show a shape on every space and tile: triangle blue, square red, "
            "circle green, diamond yellow, cross pink."
        ),
    )

    class Theme(models.TextChoices):
        SYSTEM = "system", _("follow the system")
        LIGHT = "light", pgettext_lazy("a theme", "light")
        DARK = "dark", pgettext_lazy("a theme", "dark")

    # The colours of every page (templates/base.html): the device's light or dark setting, or one
    # of the two whatever the device says.
    theme = models.CharField(_("theme"), max_length=10, choices=Theme.choices, default=Theme.SYSTEM)

    # Email notifications, one switch per kind of message.
    email_your_turn = models.BooleanField(_("it is my turn"), default=True)
    email_reminder = models.BooleanField(_("my time is running out"), default=True)
    email_timeout = models.BooleanField(_("my time ran out"), default=True)
    email_invitation = models.BooleanField(_("someone invites me to a game"), default=True)
    email_game_started = models.BooleanField(_("a game I joined starts"), default=True)
    email_game_over = models.BooleanField(_("a game I played ends"), default=True)
    email_tournaments = models.BooleanField(
        _("news of my tournaments"),
        default=True,
        help_text=_("Registered, starting soon, each new round's table, the final standings."),
    )
    email_daily_digest = models.BooleanField(
        _("one daily digest instead of an email per turn"),
        default=False,
        help_text=_("Once a day, a list of the games waiting for your move."),
    )
    # The notices above as Web Push messages to the browsers the player subscribed (Settings),
    # instead of emails; with no browser subscribed, they stay emails.
    push_instead_of_email = models.BooleanField(
        _("push notifications instead of emails"),
        default=False,
        help_text=_(
            "To the browsers where you turned on push notifications, even with no tab "
            "of this site open."
        ),
    )

    # Set by an admin (reports, games/chat.py): the player may no longer write in table talks.
    chat_muted = models.BooleanField(
        _("muted in table talks"),
        default=False,
        help_text=_("A muted player can play but not write in any game's table talk."),
    )

    class InvitationsFrom(models.TextChoices):
        ANYONE = "anyone", _("anyone")
        FOLLOWED = "followed", _("only players I follow")

    # Who may invite the player to a table by name (games/play/actions/tables.py `_invite`, through
    # accounts/privacy.py); a blocked player never may, whatever this says (accounts/blocking.py).
    invitations_from = models.CharField(
        _("who may invite me by name"),
        max_length=10,
        choices=InvitationsFrom.choices,
        default=InvitationsFrom.ANYONE,
    )

    class GamesShownTo(models.TextChoices):
        EVERYONE = "everyone", _("everyone")
        SIGNED_IN = "signed_in", _("signed-in players")

    # Who sees the player's games (their pages and replays too, whoever else plays them: games/
    # games/access.py `can_view`), statistics and rating (on their profile and archive, and the
    # leaderboard) (accounts/privacy.py); their name and profile page stay public.
    games_shown_to = models.CharField(
        _("who may see my games and rating history"),
        max_length=10,
        choices=GamesShownTo.choices,
        default=GamesShownTo.EVERYONE,
    )

    # The digest of the username's confusable skeleton (accounts/names.py): two names with one
    # key look alike, so a new name whose key is taken is refused. Null for an account made without
    # save() (bulk_create) or whose name already looked like an older account's when the key
    # came in (the migration keeps the older one's).
    name_key = models.CharField(max_length=64, null=True, unique=True, editable=False)  # noqa: DJ001
    # Vacations (accounts/vacations.py has the rule; games/play/vacations.py starts and ends
    # them): the days banked as of a moment; the current vacation's start and end, if any; the
    # vacations that ended lately ([start, end] in ISO form), which running clocks still skip.
    vacation_days = models.DurationField(default=timedelta(days=30))
    vacation_days_at = models.DateTimeField(default=timezone.now)
    vacation_started_at = models.DateTimeField(null=True, blank=True)
    vacation_until = models.DateTimeField(null=True, blank=True)
    past_vacations = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            # Two players must never differ only by case ("Ada" and "ada").
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
            # A bot account is played by its owner's program, a computer player by the server:
            # never both, lest the server and the program play one seat.
            models.CheckConstraint(
                condition=Q(bot_owner__isnull=True) | Q(bot_level__isnull=True),
                name="accounts_user_bot_account_not_computer",
            ),
        ]
        indexes = [
            # The sweep ends the vacations that ran out (games/play/clock.py).
            models.Index(
                fields=["vacation_until"],
                condition=Q(vacation_until__isnull=False),
                name="accounts_user_on_vacation",
            ),
            # The guests' sweep (games/first_visit/guests.py), without reading every account.
            models.Index(
                fields=["date_joined"],
                condition=Q(is_guest=True),
                name="accounts_user_guests",
            ),
            # The sweep's computer players (games/play/clock.py), without reading every account.
            models.Index(
                fields=["bot_level"],
                condition=Q(bot_level__isnull=False),
                name="accounts_user_bots",
            ),
        ]

    def __str__(self):
        return self.username

    def save(self, *args, **kwargs):
        if self._state.adding or self.name_key is not None:
            self.name_key = name_key(self.username)
            update_fields = kwargs.get("update_fields")
            if update_fields is not None and "username" in update_fields:
                kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        """The player's time zone, in which every time is shown to them."""
        return zone_named(self.time_zone)

    @property
    def is_bot(self) -> bool:
        """A computer player, whose moves the server plays (not an API bot account)."""
        return bool(self.bot_level)

    @property
    def is_api_bot(self) -> bool:
        """A bot account, played through the public API by its owner's program."""
        return self.bot_owner_id is not None


class Follow(models.Model):
    """`follower` follows `followed`: their games in progress and latest results are on the
    follower's dashboard, and, if the follower says so, only they may invite the follower by
    name (accounts/following.py makes and ends them)."""

    follower = models.ForeignKey(User, on_delete=models.CASCADE, related_name="follows")
    followed = models.ForeignKey(User, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="accounts_follow_once"),
            models.CheckConstraint(
                condition=~Q(follower=F("followed")), name="accounts_follow_not_oneself"
            ),
        ]

    def __str__(self):
        return f"{self.follower_id} follows {self.followed_id}"


class Block(models.Model):
    """`blocker` blocked `blocked`: from then on the two are kept apart both ways, and silently
    (accounts/blocking.py says where: invitations by name, open tables, seats, table talk)."""

    blocker = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="accounts_block_once"),
            models.CheckConstraint(
                condition=~Q(blocker=F("blocked")), name="accounts_block_not_oneself"
            ),
        ]
        indexes = [
            # Blocks are read both ways (`blocked_ids`): the unique pair serves the blocker's
            # side, this the blocked one's.
            models.Index(fields=["blocked", "blocker"], name="accounts_block_by_blocked"),
        ]

    def __str__(self):
        return f"{self.blocker_id} blocks {self.blocked_id}"


def looks_taken(name: str, *, other_than: int | None = None) -> bool:
    """Whether `name` looks like the name of an account (other than the one with pk
    `other_than`): one indexed query (accounts/names.py)."""
    found = User.objects.filter(name_key__in=keys_to_refuse(name))
    if other_than is not None:
        found = found.exclude(pk=other_than)
    return found.exists()


class AccessToken(models.Model):
    """A personal access token for the public API (accounts/tokens.py makes, checks and revokes
    them). Only a digest of the secret is kept: the secret is shown once, when it is made."""

    class Scope(models.TextChoices):
        READ = "read", _("read: see games, profiles and the stream")
        PLAY = "play", _("play: move, seek, join and invite as well")

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(max_length=60)
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.READ)
    # The first characters of the secret, shown in the list so its owner can tell tokens apart.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)  # SHA-256 of the secret, in hex
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"], name="accounts_token_by_user")]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def allows(self, scope: str) -> bool:
        """Whether the token may do what `scope` names: playing includes reading, and a scope
        it does not know is never allowed."""
        if scope == self.Scope.READ:
            return True
        return scope == self.Scope.PLAY and self.scope == self.Scope.PLAY
