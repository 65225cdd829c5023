"""django-allauth's account adapter (settings.ACCOUNT_ADAPTER): its emails (sign-up
confirmation, password reset...) speak of the site at settings.SITE_URL, and leave through the
site's outbox (infra/outbox.py), as every other email of the site does.

Left to itself, allauth names the site by the Site row (fixed by a migration at the first
`migrate`, so `localhost:8000` on a site that runs elsewhere), links to the address of the
request that caused the email, and sends it at once inside the request: an SMTP server that is
slow or down would fail the sign-up, and nothing would send the email again. Here the rendered
message is stored as a row of the outbox, in the request's transaction, and a task sends it
after the commit, at least once and with one Message-ID.

It also runs the log-in's own limits (accounts/lockout.py: a lock per account, a limit per
address, the browsers an account trusts) in place of allauth's `login_failed` limit, and refuses
usernames that look like an existing player's (accounts/names.py) or a guest's. A guest's
sign-up fills in the guest's own row (accounts/guests.py): their games stay theirs.
"""

from contextlib import nullcontext
from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib.auth import logout
from django.contrib.sites.models import Site
from django.core.exceptions import ValidationError
from django.utils import translation

from infra import outbox

from . import guests, lockout, names
from .models import looks_taken


def public_site() -> Site:
    """The site as emails name it (`current_site` in allauth's templates), from SITE_URL."""
    return Site(domain=urlsplit(settings.SITE_URL).netloc, name=settings.SITE_NAME)


def on_public_address(url: str, built_on: str) -> str:
    """`url` moved to SITE_URL when allauth built it on the address `built_on`; else as it is."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.netloc != built_on:
        return url
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return f"{settings.SITE_URL}{parts.path}{query}{fragment}"


class AccountAdapter(DefaultAccountAdapter):
    def render_mail(self, template_prefix, email, context, headers=None):
        # allauth builds its links (activate_url, password_reset_url...) on the request's
        # address, or on the Site row's domain when there is no request.
        request = allauth_context.request
        built_on = request.get_host() if request else Site.objects.get_current().domain
        context = {
            **context,
            "current_site": public_site(),
            **{
                key: on_public_address(value, built_on)
                for key, value in context.items()
                if key.endswith("_url") and isinstance(value, str)
            },
        }
        with _language_of(context.get("user")):
            message = super().render_mail(template_prefix, email, context, headers)
        return _ToOutbox(message)

    # Log-in attempts: allauth calls pre_authenticate before it checks a password and
    # authentication_failed after a wrong one, on the same adapter.
    def pre_authenticate(self, request, **credentials):
        self._attempt = lockout.Attempt.for_credentials(request, credentials)
        self._attempt.refuse_if_limited()

    def authentication_failed(self, request, **credentials):
        attempt = getattr(self, "_attempt", None) or lockout.Attempt.for_credentials(
            request, credentials
        )
        attempt.failed()

    def post_login(self, request, user, **kwargs):
        response = super().post_login(request, user, **kwargs)
        lockout.trust_this_browser(request, response, user)
        return response

    def clean_username(self, username, shallow=False):
        username = super().clean_username(username, shallow=shallow)
        if guests.looks_like_a_guest_name(username):
            raise ValidationError(names.MESSAGE, code="username_looks_taken")
        if not shallow and looks_taken(username):
            raise ValidationError(names.MESSAGE, code="username_looks_taken")
        return username

    # A guest's sign-up (accounts/views.py `signup` keeps the guest on the request): the same
    # row becomes the player, so its seats, events and replays need no moving.
    def new_user(self, request):
        guest = getattr(request, "guest_signing_up", None)
        return guest if guest is not None else super().new_user(request)

    def save_user(self, request, user, form, commit=True):
        converting = guests.is_guest(user)
        if converting:
            user.is_guest = False
            user.first_name = user.last_name = ""
        user = super().save_user(request, user, form, commit=commit)
        if converting:
            # Signed in as the guest until now: from here the usual sign-up goes on (the
            # email's confirmation signs the player in), as for anyone who signs up.
            logout(request)
        return user


def _language_of(user):
    """An account email (allauth's: its templates and its translations) speaks the language the
    player chose for their emails; without one (a sign-up, a player who never chose), the
    request's, which is that of the person at the browser who asked for it."""
    chosen = getattr(user, "language", "") or ""
    if chosen in dict(settings.LANGUAGES):
        return translation.override(chosen)
    return nullcontext()


class _ToOutbox:
    """A rendered message whose `send()` (what allauth calls) writes it to the outbox."""

    def __init__(self, message):
        self.message = message

    def send(self, fail_silently: bool = False) -> int:
        outbox.send_after_commit(outbox.add_message(self.message))
        return 1
