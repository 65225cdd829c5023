"""A player's page (/players/<name>/): their rating and its history, statistics and latest
games, the bots they run or who runs them, and the buttons to follow or block them, with the
view those buttons post to.

It lives in the games because most of what it shows is the games' (games/history/); who may see
what, the follows and the blocks are the accounts' (accounts/privacy.py, following.py,
blocking.py), which it calls, as every page of the games does.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts import api_bots, blocking, following, privacy
from accounts.models import User
from accounts.refusals import Refused
from games.history import archive, chart
from games.play.rate_limits import PEOPLE, per_player
from games.tournaments import reading as tournament_reading

PROFILE_GAMES = 10  # the latest games on the profile; the archive page has them all


def profile(request, username):
    """The public profile: rating and its history, statistics and the latest games (unless the
    player shows them to signed-in players only: accounts/privacy.py), who runs it or the bots
    it runs (accounts/api_bots.py), and for a signed-in visitor the buttons to follow or block
    the player."""
    player = get_object_or_404(
        User.objects.named(username).select_related("bot_owner"), is_active=True, is_guest=False
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
            tournaments=tournament_reading.tournaments_of(player),
        )
    return render(request, "games/profile.html", context)


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
    player = get_object_or_404(User.objects.named(username), is_active=True, is_guest=False)
    make, said = PEOPLE_CHANGES[change]
    refusal = ""
    try:
        make(request.user, player)
    except Refused as refused:
        refusal = refused.message
    if request.htmx:
        context = {**_people_buttons(request.user, player), "refusal": refusal}
        return render(request, "games/partials/people_buttons.html", context)
    if refusal:
        messages.error(request, refusal)
    else:
        messages.success(request, said % {"name": player.username})
    if request.POST.get("back") == "settings":
        return redirect("accounts:settings")
    return redirect("players:profile", player.username)
