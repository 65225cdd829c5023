from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.core import context
from allauth.mfa.base.forms import AuthenticateForm, ReauthenticateForm
from django import forms
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from . import lockout, names
from .models import AccessToken, User, looks_taken

# The longest log-in anyone has: an email address (a username has at most 150 characters).
MAX_LOGIN_LENGTH = 254

NOTIFICATION_FIELDS = [
    "email_your_turn",
    "email_reminder",
    "email_timeout",
    "email_invitation",
    "email_game_started",
    "email_game_over",
    "email_tournaments",
    "email_daily_digest",
]

# Who may reach the player and see their games (accounts/privacy.py).
PEOPLE_FIELDS = ["invitations_from", "games_shown_to"]


class SettingsForm(forms.ModelForm):
    notification_fields = NOTIFICATION_FIELDS

    class Meta:
        model = User
        fields = [
            "language",
            "time_zone",
            "theme",
            "colour_blind",
            *NOTIFICATION_FIELDS,
            "push_instead_of_email",
            *PEOPLE_FIELDS,
        ]
        widgets = {
            "theme": forms.RadioSelect,
            **dict.fromkeys(PEOPLE_FIELDS, forms.RadioSelect),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in PEOPLE_FIELDS:  # a form without them (an older page) keeps them as they are
            self.fields[name].required = False
        # A zone saved before the list offered only real ones ("US/Pacific") stays the player's
        # until they choose another: saving the page must not change it behind their back.
        saved = self.instance.time_zone
        field = self.fields["time_zone"]
        if saved and saved not in dict(field.choices):
            field.choices = [(saved, saved.replace("_", " ")), *field.choices]

    def _kept(self, name):
        return self.cleaned_data.get(name) or getattr(self.instance, name)

    def clean_invitations_from(self):
        return self._kept("invitations_from")

    def clean_games_shown_to(self):
        return self._kept("games_shown_to")


class TokenForm(forms.Form):
    """A new API token (accounts/tokens.py): its name, its scope, and whose it is, the player's
    own or one of their bot accounts' (`accounts`: the player first, then their bots)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=AccessToken._meta.get_field("name").max_length,
        help_text=_("To tell it from your others, e.g. the program that uses it."),
    )
    scope = forms.ChoiceField(
        label=_("Scope"),
        choices=AccessToken.Scope.choices,
        initial=AccessToken.Scope.READ,
        widget=forms.RadioSelect,
    )
    # Translators: the label of the account a new API token is for ("For: you (ada)").
    account = forms.TypedChoiceField(label=_("For"), coerce=int)

    def __init__(self, *args, accounts, **kwargs):
        super().__init__(*args, **kwargs)
        self.accounts = {account.pk: account for account in accounts}
        owner, *bots = accounts
        self.fields["account"].choices = [
            (owner.pk, gettext("you (%(name)s)") % {"name": owner.username}),
            *(
                (bot.pk, gettext("%(name)s (your bot account)") % {"name": bot.username})
                for bot in bots
            ),
        ]
        self.fields["account"].initial = owner.pk

    def clean_account(self):
        return self.accounts[self.cleaned_data["account"]]


class BotForm(forms.Form):
    """A new bot account (accounts/api_bots.py checks its name as sign-up does)."""

    username = forms.CharField(
        label=_("Bot's name"),
        max_length=150,
        help_text=_("Letters, digits and @ . + - _ only, as any player's name."),
    )


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


class _CountedCode:
    """A second-factor code (allauth.mfa's form): refused with the 429 page while the account
    is locked (accounts/lockout.py), and a wrong one counted as a wrong password is."""

    def clean_code(self):
        attempt = lockout.Attempt(context.request, self.user)
        attempt.refuse_if_limited()
        try:
            return super().clean_code()
        except ValidationError:
            attempt.failed()
            raise


class SecondFactorForm(_CountedCode, AuthenticateForm):
    """The code asked after the password at log-in (MFA_FORMS["authenticate"])."""


class SecondFactorAgainForm(_CountedCode, ReauthenticateForm):
    """The code asked to confirm it is you (MFA_FORMS["reauthenticate"])."""


class _NoLookAlikeName:
    """The admin's user forms refuse a name that looks like another player's, as sign-up does
    (accounts/names.py)."""

    def clean_username(self):
        clean = getattr(super(), "clean_username", None)
        username = clean() if clean else self.cleaned_data["username"]
        changed = self.instance.pk is None or "username" in self.changed_data
        if changed and looks_taken(username, other_than=self.instance.pk):
            raise ValidationError(names.MESSAGE, code="username_looks_taken")
        return username


class PlayerCreationForm(_NoLookAlikeName, UserAdmin.add_form):
    pass


class PlayerChangeForm(_NoLookAlikeName, UserAdmin.form):
    pass
