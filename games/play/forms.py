from dataclasses import fields
from datetime import timedelta
from decimal import Decimal

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from games.models import (
    ABANDON_AFTER_ROW,
    ABANDON_AFTER_TOTAL,
    ABANDON_ROW_RANGE,
    ABANDON_TOTAL_RANGE,
    Game,
)
from games.rules import ACTION_TYPES
from games.rules.bots import LEVELS as BOT_LEVELS


def _hours(count: int):
    return ngettext_lazy("%(count)d hour", "%(count)d hours", "count") % {"count": count}


def _days(count: int):
    return ngettext_lazy("%(count)d day", "%(count)d days", "count") % {"count": count}


TIME_PER_MOVE_CHOICES = [
    ("1h", _hours(1), timedelta(hours=1)),
    ("3h", _hours(3), timedelta(hours=3)),
    ("12h", _hours(12), timedelta(hours=12)),
    ("1d", _days(1), timedelta(days=1)),
    ("2d", _days(2), timedelta(days=2)),
    ("3d", _days(3), timedelta(days=3)),
    ("7d", _days(7), timedelta(days=7)),
    ("14d", _days(14), timedelta(days=14)),
]
TIME_PER_MOVE = {key: value for key, _label, value in TIME_PER_MOVE_CHOICES}
# A Fischer clock's choices (games/models/game.py has the ranges the action checks).
FISCHER_BANK_CHOICES = ["12h", "1d", "2d", "3d", "5d", "7d", "14d"]
FISCHER_INCREMENT_CHOICES = ["1h", "3h", "12h", "1d", "2d", "3d"]
FISCHER_CAP_CHOICES = ["1d", "3d", "5d", "7d", "14d", "21d", "30d"]
DURATIONS = {
    **TIME_PER_MOVE,
    "5d": timedelta(days=5),
    "21d": timedelta(days=21),
    "30d": timedelta(days=30),
}
DURATION_WORDS = {key: label for key, label, _duration in TIME_PER_MOVE_CHOICES} | {
    "5d": _days(5),
    "21d": _days(21),
    "30d": _days(30),
}
MAX_INVITEES = 4


def _duration_choice(label: str, keys: list[str], initial: str, help_text: str = ""):
    """A Fischer time: needed only with that clock, so a form without it takes the default."""
    return forms.TypedChoiceField(
        label=label,
        choices=[(key, DURATION_WORDS[key]) for key in keys],
        coerce=DURATIONS.__getitem__,
        initial=initial,
        required=False,
        empty_value=DURATIONS[initial],
        help_text=help_text,
    )


def _bot_count(label: str, help_text: str) -> forms.TypedChoiceField:
    """How many computer players of one level take seats: 0 to 4."""
    return forms.TypedChoiceField(
        label=label,
        choices=[(n, str(n)) for n in range(0, 5)],
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,
        help_text=help_text,
    )


class CreateGameForm(forms.Form):
    # Drawn together, in the page's "Clock" fieldset (templates/games/create.html).
    time_control_fields = (
        "clock",
        "time_per_move",
        "fischer_bank",
        "fischer_increment",
        "fischer_cap",
        "finishing_time",
        "weekends_off",
    )
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=60,
        required=False,
        help_text=gettext_lazy("Optional."),
    )
    player_count = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        choices=[(n, str(n)) for n in range(2, 6)],
        coerce=int,
        initial=2,
    )
    clock = forms.TypedChoiceField(
        label=gettext_lazy("Clock"),
        required=False,
        empty_value=Game.Clock.PER_MOVE,
        choices=[
            (Game.Clock.PER_MOVE, gettext_lazy("Time per move: every draft has the same time")),
            (
                Game.Clock.FISCHER,
                gettext_lazy("Fischer: a bank of time, more with each draft, up to a cap"),
            ),
        ],
        initial=Game.Clock.PER_MOVE,
        widget=forms.RadioSelect,
    )
    time_per_move = forms.ChoiceField(
        label=gettext_lazy("Time per move"),
        choices=[(key, label) for key, label, _duration in TIME_PER_MOVE_CHOICES],
        initial="1d",
        required=False,  # a Fischer clock has none: "1d" then, unused
    )
    fischer_bank = _duration_choice(
        gettext_lazy("Starting bank"),
        FISCHER_BANK_CHOICES,
        "3d",
        gettext_lazy("Each player's time to begin with."),
    )
    fischer_increment = _duration_choice(
        gettext_lazy("Added with each draft"),
        FISCHER_INCREMENT_CHOICES,
        "1d",
        gettext_lazy("When the draft is confirmed."),
    )
    fischer_cap = _duration_choice(
        # Translators: a Fischer clock's cap: the most time its bank holds.
        gettext_lazy("At most"),
        FISCHER_CAP_CHOICES,
        "7d",
        gettext_lazy("A bank never holds more than this."),
    )
    finishing_time = forms.ChoiceField(
        label=gettext_lazy("Time to finish"),
        choices=[("", gettext_lazy("as a move (Fischer: the starting bank)"))]
        + [(key, label) for key, label, _duration in TIME_PER_MOVE_CHOICES],
        initial="",
        required=False,
        help_text=gettext_lazy(
            "Each player's time for the final arrangement, once the pool is empty."
        ),
    )
    weekends_off = forms.BooleanField(
        label=gettext_lazy("Weekends off"),
        required=False,
        initial=False,
        help_text=gettext_lazy(
            "The clocks stop on Saturdays and Sundays, in each player's own time zone."
        ),
    )
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False, initial=True)
    strict_finish = forms.BooleanField(
        label=gettext_lazy("Finish needs every placed path closed (as in the online edition)"),
        required=False,
        initial=False,
        help_text=gettext_lazy(
            "Off: the rulebook's reading, where an open path only warns and any board "
            "without an illegal tile may finish."
        ),
    )
    access = forms.ChoiceField(
        label=gettext_lazy("Access"),
        choices=Game.Access.choices,
        initial=Game.Access.OPEN,
        widget=forms.RadioSelect,
    )
    private = forms.TypedChoiceField(
        label=gettext_lazy("Who can watch"),
        choices=[
            (
                "",
                gettext_lazy(
                    "As its access says: anyone an open table, only its players and the people "
                    "invited a table by invitation"
                ),
            ),
            ("no", gettext_lazy("Anyone")),
            (
                "yes",
                gettext_lazy(
                    "Only its players and the people invited (the game, its replay, and its "
                    "place on their profiles)"
                ),
            ),
        ],
        coerce=lambda value: value == "yes",
        empty_value=None,
        required=False,
        initial="",
        widget=forms.RadioSelect,
    )
    spectators_read_chat = forms.BooleanField(
        label=gettext_lazy("People watching may read the players' table talk"),
        required=False,
        initial=True,
        help_text=gettext_lazy("Off: only the players see what they write to each other."),
    )
    abandon_after_row = forms.TypedChoiceField(
        label=gettext_lazy("The server takes over a seat after this many timeouts in a row"),
        choices=[(n, str(n)) for n in range(ABANDON_ROW_RANGE[0], ABANDON_ROW_RANGE[1] + 1)],
        coerce=int,
        initial=ABANDON_AFTER_ROW,
        required=False,
        empty_value=ABANDON_AFTER_ROW,
        help_text=gettext_lazy(
            "The player is then ranked as if they had resigned; the others may also vote "
            "to hand a seat to the server after its player's second timeout in a row."
        ),
    )
    abandon_after_total = forms.TypedChoiceField(
        label=gettext_lazy("… or after this many timeouts in all"),
        choices=[(n, str(n)) for n in range(ABANDON_TOTAL_RANGE[0], ABANDON_TOTAL_RANGE[1] + 1)],
        coerce=int,
        initial=ABANDON_AFTER_TOTAL,
        required=False,
        empty_value=ABANDON_AFTER_TOTAL,
    )
    invitees = forms.CharField(
        label=gettext_lazy("Invite players"),
        required=False,
        help_text=gettext_lazy("Usernames, separated by commas."),
        max_length=200,
    )

    easy_bots = _bot_count(
        gettext_lazy("Easy computer players"),
        gettext_lazy("They take seats at once, out of the players above."),
    )
    strong_bots = _bot_count(
        gettext_lazy("Strong computer players"),
        gettext_lazy("With every other seat a computer's, the game starts at once."),
    )
    expert_bots = _bot_count(
        gettext_lazy("Expert computer players"),
        gettext_lazy("They look ahead over every draft to come: the hardest to beat."),
    )

    def clean_time_per_move(self):
        return TIME_PER_MOVE[self.cleaned_data["time_per_move"] or "1d"]

    def clean_finishing_time(self):
        key = self.cleaned_data["finishing_time"]
        return TIME_PER_MOVE[key] if key else None

    def clean(self):
        """Check a Fischer clock's three times together, and turn the counts of computer
        players (one field a level) into the `bots` of actions.create_game."""
        data = super().clean()
        if data.get("clock") == Game.Clock.FISCHER:
            bank, increment = data.get("fischer_bank"), data.get("fischer_increment")
            cap = data.get("fischer_cap")
            if None not in (bank, increment, cap) and (bank > cap or increment > cap):
                self.add_error(
                    "fischer_cap",
                    forms.ValidationError(
                        _("The cap must be at least the starting bank and the increment."),
                        code="fischer_cap",
                    ),
                )
        counts = {level: data.pop(f"{level}_bots", 0) or 0 for level in BOT_LEVELS}
        players = data.get("player_count")
        if players is not None and sum(counts.values()) > players - 1:
            raise forms.ValidationError(
                ngettext(
                    "A game of %(players)d players has room for at most %(bots)d computer "
                    "player besides you.",
                    "A game of %(players)d players has room for at most %(bots)d computer "
                    "players besides you.",
                    players - 1,
                )
                % {"players": players, "bots": players - 1},
                code="bots",
            )
        data["bots"] = tuple(level for level, count in counts.items() for _ in range(count))
        row, total = data.get("abandon_after_row"), data.get("abandon_after_total")
        if row is not None and total is not None and total < row:
            self.add_error(
                "abandon_after_total", _("Choose at least as many timeouts in all as in a row.")
            )
        return data

    def clean_invitees(self):
        names = [name.strip() for name in self.cleaned_data["invitees"].split(",") if name.strip()]
        unique = list(dict.fromkeys(name.lower() for name in names))
        if len(unique) > MAX_INVITEES:
            raise forms.ValidationError(
                ngettext(
                    "Invite at most %(count)d player.",
                    "Invite at most %(count)d players.",
                    MAX_INVITEES,
                )
                % {"count": MAX_INVITEES}
            )
        return tuple(unique)


class VacationForm(forms.Form):
    """How long to go on vacation, in days (tenths allowed); the action checks the days left."""

    days = forms.DecimalField(
        label=gettext_lazy("Days"), min_value=Decimal("0.1"), max_digits=4, decimal_places=1
    )

    def clean_days(self):
        return timedelta(days=float(self.cleaned_data["days"]))


class InviteForm(forms.Form):
    username = forms.CharField(label=gettext_lazy("Username"), max_length=150)


class LobbyFilterForm(forms.Form):
    player_count = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        # Translators: the lobby's filter: any number of players.
        choices=[("", gettext_lazy("any"))] + [(n, str(n)) for n in range(2, 6)],
        coerce=int,
        required=False,
        empty_value=None,
    )
    rated = forms.TypedChoiceField(
        label=gettext_lazy("Rated"),
        choices=[
            ("", gettext_lazy("rated or not")),
            ("yes", gettext_lazy("rated")),
            ("no", gettext_lazy("unrated")),
        ],
        coerce=lambda value: value == "yes",
        required=False,
        empty_value=None,
    )


class ActionForm(forms.Form):
    """A player's action as posted by the game page: its type, its numbers, and the version of
    the page it was made on (posted, or else the page's X-Page-Version header: its buttons do
    not carry it, so that they are drawn once for many versions)."""

    # Not the server's own (the forced take, the early end), nor leaving (its own buttons).
    type = forms.ChoiceField(
        choices=[
            (name, name) for name in ACTION_TYPES if name not in ("take_last", "resign", "conclude")
        ]
    )
    version = forms.IntegerField(min_value=0)
    tile_id = forms.IntegerField(required=False, min_value=0, max_value=59)
    space = forms.IntegerField(required=False, min_value=0, max_value=24)
    rotation = forms.IntegerField(required=False, min_value=0, max_value=3)
    quarter_turns = forms.IntegerField(required=False, min_value=1, max_value=3)
    from_space = forms.IntegerField(required=False, min_value=0, max_value=24)
    to_space = forms.IntegerField(required=False, min_value=0, max_value=24)
    space_a = forms.IntegerField(required=False, min_value=0, max_value=24)
    space_b = forms.IntegerField(required=False, min_value=0, max_value=24)

    @classmethod
    def of_request(cls, request) -> "ActionForm":
        """The action posted by `request`, with the version of its page from the header if the
        post does not say it."""
        return cls(_with_page_version(request))

    def action(self) -> dict:
        """Return the rules action in its JSON form (the rules package checks it)."""
        data = self.cleaned_data
        action = {"type": data["type"]}
        for field in fields(ACTION_TYPES[data["type"]]):
            if data.get(field.name) is not None:
                action[field.name] = data[field.name]
        return action

    def error_text(self) -> str:
        return " ".join(
            f"{name.replace('_', ' ')}: {' '.join(errors)}"
            if name != "__all__"
            else " ".join(errors)
            for name, errors in self.errors.items()
        )


def _with_page_version(request):
    """What `request` posted, with the version of its page from the X-Page-Version header
    (games/static/games/live.js sends it with every request of a game page) if the post does
    not say it."""
    data = request.POST
    if "version" not in data and "X-Page-Version" in request.headers:
        data = data.copy()
        data["version"] = request.headers["X-Page-Version"]
    return data


class QueueForm(forms.Form):
    """A player's queued draft as the Drafting-ahead panel posts it: the tile ids, best first,
    separated by commas (none: clear it), "confirm it for me", and the page's version (posted,
    or else the page's X-Page-Version header: the panel's buttons do not carry it, so that a
    panel that did not change is drawn once for many versions)."""

    @classmethod
    def of_request(cls, request) -> "QueueForm":
        return cls(_with_page_version(request))

    tiles = forms.RegexField(
        regex=r"^\d{1,2}(,\d{1,2}){0,11}$|^$",
        required=False,
        max_length=40,
        error_messages={
            "invalid": gettext_lazy("List the queued tiles by number, separated by commas.")
        },
    )
    confirm = forms.BooleanField(required=False)
    version = forms.IntegerField(min_value=0)

    def clean_tiles(self) -> tuple[int, ...]:
        text = self.cleaned_data["tiles"]
        return tuple(int(tile) for tile in text.split(",")) if text else ()

    error_text = ActionForm.error_text


class QuickPlayForm(forms.Form):
    """What a player asks quick play for (games/play/quickplay.py)."""

    player_count = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        choices=[(n, str(n)) for n in range(2, 6)],
        coerce=int,
        initial=2,
    )
    time_per_move = forms.ChoiceField(
        label=gettext_lazy("Time per move"),
        choices=[(key, label) for key, label, _duration in TIME_PER_MOVE_CHOICES],
        initial="1d",
    )
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False, initial=True)

    def clean_time_per_move(self):
        return TIME_PER_MOVE[self.cleaned_data["time_per_move"]]
