"""Failed log-ins: a lock per account, a limit per address, and the browsers an account trusts.

LOGIN_FAILED_RATE_LIMIT (default `10/m/ip,5/5m/key`) says how many failed log-ins are allowed:
- per account (`/key`): whatever was typed for it (its username in any case, its email address)
  and from whatever address; past the limit the account is locked for everyone but its trusted
  browsers until the oldest failure comes of age. Unknown names are counted alike, so the
  answers do not tell which accounts exist.
- per address (`/ip`): failures from one address, whatever the account; past the limit that
  address waits. It slows one address (a short period), it locks no account.
- a trusted browser: one that has logged in to the account before carries a signed cookie
  naming it (set by accounts/adapter.py after each log-in). Its attempts at that account are
  counted against that browser alone, with the account's numbers, and pass the account's lock
  and the address's limit: an attack on the account, or failures of other people at the same
  address (a café, an office, a carrier's NAT), never keep the owner out of their own browser.
  Such a cookie is worth nothing for another account, nor once its signature is touched.

An attempt past a limit is not tried and not counted; it is answered 429 with the wait
(templates/429.html, and Retry-After). A password reset lifts the account's lock. Wrong
second-factor codes count against the account as wrong passwords do (accounts/forms.py).
"""

from __future__ import annotations

import secrets
from ipaddress import IPv6Network, ip_address

from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from allauth.core.exceptions import ImmediateHttpResponse
from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.translation import gettext as _

from infra import rate_limits as limits
from infra.words import wait_words

from .models import User

DEVICE_COOKIE = "microchip_device"
DEVICE_DAYS = 180
_SALT = "accounts.lockout.device"

ACCOUNT = "login-failed-account"
ADDRESS = "login-failed-address"
DEVICE = "login-failed-device"


def _rates(per: str) -> list[limits.Rate]:
    return [r for r in limits.parse_rates(settings.LOGIN_FAILED_RATE_LIMIT) if r.per == per]


def client_address(request) -> str:
    """The client's address as allauth's limits count it (TRUSTED_PROXY_COUNT, IPv6 /64)."""
    address = get_adapter(request).get_client_ip(request)
    try:
        parsed = ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6:
        return str(IPv6Network(f"{parsed}/64", strict=False).network_address)
    return address


def account_for(credentials: dict) -> User | None:
    """The account the log-in form's credentials name, if one does."""
    typed = credentials.get("email") or credentials.get("username") or ""
    user = User.objects.named(typed).first()
    if user is None and "email" in credentials:
        owners = set(
            EmailAddress.objects.filter(email__iexact=typed).values_list("user_id", flat=True)
        )
        owners |= set(User.objects.filter(email__iexact=typed).values_list("pk", flat=True))
        if len(owners) == 1:
            user = User.objects.filter(pk=owners.pop()).first()
    return user


class Attempt:
    """One log-in attempt at one account (or at a name that is no account) from one browser."""

    def __init__(self, request, user: User | None, typed: str = ""):
        self.request = request
        self.account = f"user:{user.pk}" if user else f"name:{typed.casefold()}"
        self.device = trusted_device(request, user) if user else None

    @classmethod
    def for_credentials(cls, request, credentials: dict) -> Attempt:
        typed = credentials.get("email") or credentials.get("username") or ""
        return cls(request, account_for(credentials), typed)

    def refuse_if_limited(self) -> None:
        """Raise allauth's ImmediateHttpResponse with the 429 page if this attempt must wait."""
        if self.device:
            waits = [(_wait(DEVICE, self.device), DEVICE)]
        else:
            waits = [
                (_wait(ACCOUNT, self.account), ACCOUNT),
                (_wait(ADDRESS, client_address(self.request)), ADDRESS),
            ]
        seconds, what = max(waits)
        if seconds > 0:
            raise ImmediateHttpResponse(_too_many(self.request, seconds, what))

    def failed(self) -> None:
        if self.device:
            _record(DEVICE, self.device)
        else:
            _record(ACCOUNT, self.account)
            _record(ADDRESS, client_address(self.request))


def _wait(name: str, key: str) -> float:
    per = "ip" if name == ADDRESS else "key"
    return max([limits.wait(name, rate, key) for rate in _rates(per)], default=0.0)


def _record(name: str, key: str) -> None:
    for rate in _rates("ip" if name == ADDRESS else "key"):
        limits.record(name, rate, key)


def lift_lock(user: User) -> None:
    """Forget the account's failures (after a password reset by email)."""
    for rate in _rates("key"):
        limits.clear(ACCOUNT, rate, f"user:{user.pk}")


def _too_many(request, seconds: float, what: str):
    """The 429 page past the limit `what` (DEVICE, ACCOUNT or ADDRESS)."""
    wait = {"wait": wait_words(seconds)}
    account = what == ACCOUNT
    if account:
        message = _(
            "Too many failed log-ins to this account. Try again in %(wait)s, or reset your "
            "password."
        )
    elif what == DEVICE:
        message = _("Too many failed log-ins from this browser. Try again in %(wait)s.")
    else:
        message = _("Too many failed log-ins from your address. Try again in %(wait)s.")
    return limits.too_many(
        request,
        seconds,
        message % wait,
        reset_url=reverse("account_reset_password") if account else "",
        back_url=request.get_full_path(),
        back_label=_("Back to the log-in page"),
    )


# --- the trusted browsers ------------------------------------------------------------------------


def trusted_device(request, user: User) -> str | None:
    """The token of this browser if its cookie was given to it by a log-in to `user`."""
    value = request.COOKIES.get(DEVICE_COOKIE)
    if not value:
        return None
    try:
        user_pk, token = signing.loads(value, salt=_SALT, max_age=DEVICE_DAYS * 86400)
    except (signing.BadSignature, TypeError, ValueError):
        return None
    return token if user_pk == user.pk else None


def trust_this_browser(request, response, user: User) -> None:
    """After a log-in: the cookie that makes this browser one of the account's own."""
    token = trusted_device(request, user) or secrets.token_urlsafe(16)
    response.set_cookie(
        DEVICE_COOKIE,
        signing.dumps([user.pk, token], salt=_SALT),
        max_age=DEVICE_DAYS * 86400,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
