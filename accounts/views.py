from allauth.account import views as allauth_views
from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from infra import rate_limits as limits
from infra.words import wait_words

from . import blocking, guests, lockout
from .forms import SettingsForm
from .models import User


def signup(request, *args, **kwargs):
    """allauth's sign-up, each post counted per address (SIGNUP_RATE_LIMIT, infra/rate_limits.py),
    valid or not: a sign-up sends an email, so the limit also keeps the site from mailing
    strangers in bulk. Past it, 429 with the wait. A guest signs up as a visitor would (allauth
    sends the signed-in away), their account kept for the adapter to fill in
    (accounts/adapter.py)."""
    if guests.is_guest(request.user):
        request.guest_signing_up = request.user
        request.user = AnonymousUser()
    if request.method == "POST":
        rates = limits.parse_rates(settings.SIGNUP_RATE_LIMIT)
        address = lockout.client_address(request)
        seconds = limits.wait_then_record("signup", rates, address)
        if seconds > 0:
            return limits.too_many(
                request,
                seconds,
                _("Too many sign-ups from your address. Try again in %(wait)s.")
                % {"wait": wait_words(seconds)},
            )
    return allauth_views.signup(request, *args, **kwargs)


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    form = SettingsForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Your settings are saved."))
        return redirect("accounts:settings")
    second_factors = set(
        Authenticator.objects.filter(user=request.user).values_list("type", flat=True)
    )
    context = {
        "form": form,
        "totp_on": Authenticator.Type.TOTP in second_factors,
        "recovery_codes_on": Authenticator.Type.RECOVERY_CODES in second_factors,
        # The emails' times, as the notices keep them (games/notices/).
        "digest_time": f"{settings.DIGEST_HOUR}:00",
        "watcher_delay_minutes": round(settings.WATCHER_EMAIL_DELAY / 60, 1),
        "vapid_public_key": settings.VAPID_PUBLIC_KEY,
        "blocked": blocking.blocked_by_me(request.user),
    }
    return render(request, "accounts/settings.html", context)


@require_POST
def choose_language(request):
    """The language switcher: Django's own `set_language` (the language cookie, then back to
    the page), and for a signed-in player their setting too, so their emails follow."""
    response = set_language(request)
    code = request.POST.get("language", "")
    if request.user.is_authenticated and code in dict(settings.LANGUAGES):
        User.objects.filter(pk=request.user.pk).update(language=code)
    return response
