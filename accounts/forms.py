from django import forms

from .models import User

NOTIFICATION_FIELDS = [
    "email_your_turn",
    "email_reminder",
    "email_timeout",
    "email_invitation",
    "email_game_started",
    "email_game_over",
    "email_daily_digest",
]


class SettingsForm(forms.ModelForm):
    notification_fields = NOTIFICATION_FIELDS

    class Meta:
        model = User
        fields = ["time_zone", "colour_blind", *NOTIFICATION_FIELDS]
