from allauth.account.forms import LoginForm as AllauthLoginForm
from django import forms
from django.core.validators import MaxLengthValidator

from .models import User

# The longest log-in anyone has: an email address (a username has at most 150 characters).
MAX_LOGIN_LENGTH = 254

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
        fields = [
            "time_zone",
            "theme",
            "colour_blind",
            *NOTIFICATION_FIELDS,
            "push_instead_of_email",
        ]
        widgets = {"theme": forms.RadioSelect}


class LoginForm(AllauthLoginForm):
    """allauth's log-in form (ACCOUNT_FORMS), with the length limit its "login" field lacks when
    both a username and an email address are accepted: SQLite refuses the case-insensitive
    lookup of a very long one (a 500 instead of the form's error)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        login = self.fields["login"]
        login.max_length = MAX_LOGIN_LENGTH
        login.validators.append(MaxLengthValidator(MAX_LOGIN_LENGTH))
        login.widget.attrs["maxlength"] = str(MAX_LOGIN_LENGTH)
