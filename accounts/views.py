from allauth.account import views as allauth_views
from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from games.history import archive, chart
from games.notices.digest import digest_time
from games.notices.notice import WATCHER_DELAY
from microchip_site.words import wait_words

from . import limits, lockout
from .forms import SettingsForm
from .models import User

PROFILE_GAMES = 10  # the latest games on the profile; the archive page has them all


def profile(request, username):
    """The public profile: rating and its history, statistics and the latest games."""
    player = get_object_or_404(User.objects.named(username), is_active=True)
    return render(
        request,
        "accounts/profile.html",
        {
            "player": player,
            "rating": archive.rating_of(player),
            "chart": chart.rating_chart(player),
            "stats": archive.statistics(player),
            "seats": archive.archive_seats(player, viewer=request.user)[:PROFILE_GAMES],
            "is_me": request.user.pk == player.pk,
        },
    )


def signup(request, *args, **kwargs):
    """allauth's sign-up, each post counted per address (SIGNUP_RATE_LIMIT, accounts/limits.py),
    valid or not: a sign-up sends an email, so the limit also keeps the site from mailing
    strangers in bulk. Past it, 429 with the wait."""
    if request.method == "POST":
        rates = limits.parse_rates(settings.SIGNUP_RATE_LIMIT)
        address = lockout.client_address(request)
        seconds = limits.wait_then_record("signup", rates, address)
        if seconds > 0:
            return limits.too_many(
                request,
                seconds,
                f"Too many sign-ups from your address. Try again in {wait_words(seconds)}.",
            )
    return allauth_views.signup(request, *args, **kwargs)


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    form = SettingsForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Your settings are saved.")
        return redirect("accounts:settings")
    second_factors = set(
        Authenticator.objects.filter(user=request.user).values_list("type", flat=True)
    )
    context = {
        "form": form,
        "totp_on": Authenticator.Type.TOTP in second_factors,
        "recovery_codes_on": Authenticator.Type.RECOVERY_CODES in second_factors,
        "digest_time": digest_time(),
        "watcher_delay_minutes": round(WATCHER_DELAY.total_seconds() / 60, 1),
        "vapid_public_key": settings.VAPID_PUBLIC_KEY,
    }
    return render(request, "accounts/settings.html", context)
