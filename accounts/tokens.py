"""Personal access tokens for the public API (games/api/): made, checked and revoked here.

A secret is 32 random bytes in URL-safe base64 after the marker ``mco_`` (so that secret scanners
and people can tell one when they see it). Only its SHA-256 digest is stored: a secret has 256
bits of entropy, so a plain fast digest is as safe as a slow password hash would be, and it lets
a request find its token with one indexed lookup. The secret is shown once, when it is made.
"""

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .models import AccessToken, User

MARKER = "mco_"
SHOWN_PREFIX = 8  # characters of the secret after the marker shown in the list of tokens
MAX_TOKENS = 20  # active tokens per account
# Using a token records when, at most this often: a bot polling every second must not write a
# row each time.
LAST_USED_EVERY = timedelta(minutes=1)


class TokenRefused(Exception):
    """A token could not be made; the message says why."""


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def create_token(user: User, *, name: str, scope: str) -> tuple[AccessToken, str]:
    """Make a token for `user`; return it and its secret (which is not kept)."""
    name = " ".join(name.split())
    if not name:
        raise TokenRefused(_("Give the token a name, to tell it from the others."))
    if scope not in AccessToken.Scope.values:
        raise TokenRefused(_("A token's scope is read or play."))
    locked = User.objects.select_for_update().filter(pk=user.pk).first()  # one count at a time
    if locked is None or not locked.is_active:
        raise TokenRefused(_("This account is closed: it can have no new tokens."))
    if AccessToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_TOKENS:
        raise TokenRefused(
            # English says "tokens" for any cap, as it always has (the cap is 20).
            ngettext(
                "An account has at most %(count)d tokens; revoke one first.",
                "An account has at most %(count)d tokens; revoke one first.",
                MAX_TOKENS,
            )
            % {"count": MAX_TOKENS}
        )
    secret = MARKER + secrets.token_urlsafe(32)
    token = AccessToken.objects.create(
        user=user,
        name=name[: AccessToken._meta.get_field("name").max_length],
        scope=scope,
        prefix=secret[: len(MARKER) + SHOWN_PREFIX],
        digest=digest_of(secret),
    )
    return token, secret


def authenticate(secret: str) -> AccessToken | None:
    """The active token whose secret this is, with its user, if the user may still sign in
    (and, for a bot account, if its owner may: closing an account stops its bots too)."""
    if not isinstance(secret, str) or not secret.startswith(MARKER) or len(secret) > 100:
        return None
    token = (
        AccessToken.objects.select_related("user")
        .filter(digest=digest_of(secret), revoked_at__isnull=True, user__is_active=True)
        .filter(Q(user__bot_owner__isnull=True) | Q(user__bot_owner__is_active=True))
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def revoke(user: User, token_id: int) -> bool:
    """Revoke `user`'s token `token_id`; False if they have no such active token."""
    return bool(
        AccessToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
    )
