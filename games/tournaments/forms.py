"""The organiser's form: a tournament's settings, as games/tournaments/actions/opening.py
`create_tournament` takes them (which checks them all again, whoever calls)."""

from datetime import timedelta
from fractions import Fraction

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy

from games.play.forms import TIME_PER_MOVE, TIME_PER_MOVE_CHOICES

from .models import Tournament


class TournamentForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=48)
    description = forms.CharField(
        label=gettext_lazy("About it"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Optional: for whom, why, anything players should know."),
    )
    format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        choices=Tournament.Format.choices,
        initial=Tournament.Format.SWISS,
        widget=forms.RadioSelect,
    )
    table_size = forms.TypedChoiceField(
        label=gettext_lazy("Players a table"),
        choices=[(n, str(n)) for n in range(2, 6)],
        coerce=int,
        initial=4,
        help_text=gettext_lazy("When the players do not divide, some tables have one fewer."),
    )
    rounds = forms.IntegerField(
        label=gettext_lazy("Rounds (Swiss) or games each (round robin)"),
        min_value=1,
        max_value=40,
        required=False,
        initial=5,
        help_text=gettext_lazy(
            "Round robin: leave empty for the fewest games in which every pair can meet."
        ),
    )
    section_size = forms.IntegerField(
        label=gettext_lazy("Players a section at most (round robin)"),
        min_value=3,
        max_value=20,
        required=False,
        initial=12,
    )
    starts_at = forms.DateTimeField(
        label=gettext_lazy("Starts at"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=gettext_lazy("In your own time zone. Registration closes then."),
    )
    round_time = forms.IntegerField(
        label=gettext_lazy("Days a round"),
        min_value=1,
        max_value=120,
        initial=21,
        help_text=gettext_lazy(
            "Swiss: the next round starts when every game has ended, or after this many days "
            "at the latest (games still going on count when they end)."
        ),
    )
    min_players = forms.IntegerField(
        label=gettext_lazy("Fewest players"), min_value=2, max_value=1000, initial=4
    )
    max_players = forms.IntegerField(
        label=gettext_lazy("Most players"), min_value=2, max_value=1000, initial=100
    )
    access = forms.ChoiceField(
        label=gettext_lazy("Who may enter"),
        choices=Tournament.Access.choices,
        initial=Tournament.Access.PUBLIC,
        widget=forms.RadioSelect,
    )
    seeding = forms.ChoiceField(
        label=gettext_lazy("Seeding"),
        choices=Tournament.Seeding.choices,
        initial=Tournament.Seeding.RATING,
        widget=forms.RadioSelect,
    )
    place_points = forms.CharField(
        label=gettext_lazy("Points per place at a full table"),
        required=False,
        max_length=60,
        help_text=gettext_lazy(
            "Best place first, separated by commas, e.g. 6, 4, 2, 0. Empty: one point for each "
            "player you finish ahead of."
        ),
    )
    time_per_move = forms.ChoiceField(
        label=gettext_lazy("Time per move"),
        choices=[(key, label) for key, label, _duration in TIME_PER_MOVE_CHOICES],
        initial="1d",
    )
    weekends_off = forms.BooleanField(label=gettext_lazy("Weekends off"), required=False)
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False, initial=True)
    strict_finish = forms.BooleanField(
        label=gettext_lazy("Finish needs every placed path closed"), required=False
    )
    min_rated_games = forms.IntegerField(
        label=gettext_lazy("Rated games at least"), min_value=0, max_value=1000, initial=0
    )
    min_rating = forms.IntegerField(label=gettext_lazy("Rating at least"), required=False)
    max_rating = forms.IntegerField(label=gettext_lazy("Rating at most"), required=False)
    max_timeouts = forms.IntegerField(
        label=gettext_lazy("Timeouts in the last 90 days at most"),
        min_value=0,
        max_value=1000,
        required=False,
        help_text=gettext_lazy("Empty: no limit."),
    )

    limit_fields = ("min_rated_games", "min_rating", "max_rating", "max_timeouts")
    table_fields = ("time_per_move", "weekends_off", "rated", "strict_finish")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        start = timezone.localtime() + timedelta(days=2)
        self.fields["starts_at"].initial = start.replace(minute=0, second=0, microsecond=0)

    def clean_time_per_move(self):
        return TIME_PER_MOVE[self.cleaned_data["time_per_move"]]

    def clean_round_time(self):
        return timedelta(days=self.cleaned_data["round_time"])

    def clean_place_points(self):
        words = (self.cleaned_data["place_points"] or "").strip()
        if not words:
            return None
        try:
            return [str(Fraction(word.strip())) for word in words.split(",") if word.strip()]
        except (ValueError, ZeroDivisionError):
            raise forms.ValidationError(
                gettext_lazy("Write the points as numbers separated by commas.")
            ) from None

    def action_arguments(self) -> dict:
        """The cleaned settings, as `create_tournament` takes them."""
        data = dict(self.cleaned_data)
        row = data.pop("place_points")
        data["place_points"] = {str(data["table_size"]): row} if row else None
        if data["format"] == Tournament.Format.SWISS:
            data["section_size"] = None
        return data
