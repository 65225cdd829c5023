from allauth.account import views as allauth_views
from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from games.history import archive, chart
from games.notices.digest import digest_time
from games.notices.notice import WATCHER_DELAY
from games.play.rate_limits import PEOPLE, per_player
from microchip_site.words import wait_words

from . import api_bots, blocking, following, limits, lockout, privacy
from .forms import SettingsForm
from .models import User
from .refusals import Refused

PROFILE_GAMES = 10  # the latest games on the profile; the archive page has them all


def profile(request, username):
    """The public profile: rating and its history, statistics and the latest games (unless the
    player shows them to signed-in players only: accounts/privacy.py), who runs it or the bots
    it runs (accounts/api_bots.py), and for a signed-in visitor the buttons to follow or block
    the player."""
    player = get_object_or_404(
        User.objects.named(username).select_related("bot_owner"), is_active=True
    )
    context = {
        "player": player,
        "bots": api_bots.bots_of(player).only("username"),
        "is_me": request.user.pk == player.pk,
        "games_shown": privacy.shows_games_to(player, request.user),
        **_people_buttons(request.user, player),
    }
    if context["games_shown"]:
        context.update(
            rating=archive.rating_of(player),
            chart=chart.rating_chart(player),
            stats=archive.statistics(player),
            seats=archive.archive_seats(player, viewer=request.user)[:PROFILE_GAMES],
        )
    return render(request, "accounts/profile.html", context)


def _people_buttons(viewer, player) -> dict:
    """What the Follow and Block buttons of `player`'s profile say for `viewer`: none for a
    signed-out visitor, on one's own profile, or for a computer player's Block."""
    offered = viewer.is_authenticated and viewer.pk != player.pk
    return {
        "player": player,
        "people_buttons": offered,
        "following": offered and following.follows(viewer, player),
        "blocking": offered and blocking.has_blocked(viewer, player),
    }


# The changes a profile's buttons make, and what the player is told after each.
PEOPLE_CHANGES = {
    "follow": (
        lambda user, player: following.follow(follower=user, followed=player),
        gettext_lazy("You follow %(name)s: their games are on your dashboard."),
    ),
    "unfollow": (
        lambda user, player: following.unfollow(follower=user, followed=player),
        gettext_lazy("You no longer follow %(name)s."),
    ),
    "block": (
        lambda user, player: blocking.block(blocker=user, blocked=player),
        gettext_lazy("You blocked %(name)s. They are not told."),
    ),
    "unblock": (
        lambda user, player: blocking.unblock(blocker=user, blocked=player),
        gettext_lazy("You unblocked %(name)s."),
    ),
}


@login_required
@require_POST
@per_player(PEOPLE)
def people_change(request, username, change):
    """Follow, unfollow, block or unblock a player (a POST with its CSRF token, as every form
    of the site). htmx gets the profile's buttons drawn again; a plain form goes back to the
    profile, or to the settings page when it came from there (`back=settings`)."""
    player = get_object_or_404(User.objects.named(username), is_active=True)
    make, said = PEOPLE_CHANGES[change]
    refusal = ""
    try:
        make(request.user, player)
    except Refused as refused:
        refusal = refused.message
    if request.htmx:
        context = {**_people_buttons(request.user, player), "refusal": refusal}
        return render(request, "accounts/partials/people_buttons.html", context)
    if refusal:
        messages.error(request, refusal)
    else:
        messages.success(request, said % {"name": player.username})
    if request.POST.get("back") == "settings":
        return redirect("accounts:settings")
    return redirect("accounts:profile", player.username)


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
        "digest_time": digest_time(),
        "watcher_delay_minutes": round(WATCHER_DELAY.total_seconds() / 60, 1),
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
