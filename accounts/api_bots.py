"""Bot accounts: accounts a player makes for their own programs to play through the public API
(games/api/), with tokens that the owner makes and revokes from their settings.

Not the computer players of accounts/bots.py, whose moves the server plays: a bot account has
no `bot_level`, and its moves come only through its tokens. It has no email and an unusable
password, so it can never log in to the site's pages; it plays in the one rating pool with
everyone, marked as a bot wherever players are listed. Closing it (or its owner's account)
stops its tokens at once.
"""

from allauth.account import app_settings
from allauth.account.adapter import get_adapter
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .forms import NOTIFICATION_FIELDS
from .models import AccessToken, User

MAX_BOTS = 5  # open bot accounts per owner


class BotRefused(Exception):
    """A bot account could not be made or closed; the message says why. Nothing changed."""


def bots_of(owner: User):
    """The owner's open bot accounts, oldest first."""
    return User.objects.filter(bot_owner=owner, is_active=True).order_by("date_joined", "pk")


def create_bot(owner: User, *, username: str) -> User:
    """Make a bot account run by `owner`, its name checked as a sign-up's is (allauth's rules
    and accounts/names.py's look-alikes, through the site's account adapter)."""
    username = username.strip()
    if len(username) < app_settings.USERNAME_MIN_LENGTH:
        least = app_settings.USERNAME_MIN_LENGTH
        raise BotRefused(
            ngettext(
                "A name has at least %(count)d character.",
                "A name has at least %(count)d characters.",
                least,
            )
            % {"count": least}
        )
    # The site's adapter (settings.ACCOUNT_ADAPTER, accounts/adapter.py, as allauth finds it)
    # checks the name as at sign-up.
    try:
        username = get_adapter().clean_username(username)
    except ValidationError as refused:
        raise BotRefused(" ".join(refused.messages)) from None
    try:
        with transaction.atomic():
            return _create(owner, username)
    except IntegrityError:  # the same name, or a look-alike, taken in the meantime
        raise BotRefused(_("This name is already taken.")) from None


def _create(owner: User, username: str) -> User:
    owner = User.objects.select_for_update().filter(pk=owner.pk).first()  # one count at a time
    if owner is None or not owner.is_active:
        raise BotRefused(_("A closed account cannot make bot accounts."))
    if owner.is_bot or owner.is_api_bot:
        raise BotRefused(_("A bot account cannot run bot accounts of its own."))
    if bots_of(owner).count() >= MAX_BOTS:
        raise BotRefused(
            ngettext(
                "You may run at most %(count)d bot account; close it first.",
                "You may run at most %(count)d bot accounts; close one first.",
                MAX_BOTS,
            )
            % {"count": MAX_BOTS}
        )
    bot = User(username=username, email="", bot_owner=owner)
    bot.first_name = f"Bot account run by {owner.username}"
    for field in NOTIFICATION_FIELDS:  # it has no email address to be written to
        setattr(bot, field, False)
    bot.set_unusable_password()
    bot.save()
    return bot


def owned_bot(owner: User, bot_id) -> User | None:
    """`owner`'s open bot account `bot_id`, or None (someone else's, closed, or no such)."""
    return bots_of(owner).filter(pk=bot_id).first()


@transaction.atomic
def close_bot(owner: User, bot_id: int) -> User:
    """Close `owner`'s bot account `bot_id`: it can no longer be used, and its tokens are
    revoked. Its finished games stay in everyone's history; in a game still being played its
    seat runs out of time as any silent player's does."""
    bot = (
        User.objects.select_for_update().filter(pk=bot_id, bot_owner=owner, is_active=True).first()
    )
    if bot is None:
        raise BotRefused(_("You run no open bot account of that number."))
    bot.is_active = False
    bot.save(update_fields=["is_active"])
    AccessToken.objects.filter(user=bot, revoked_at__isnull=True).update(revoked_at=timezone.now())
    return bot
