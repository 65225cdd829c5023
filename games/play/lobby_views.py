"""The pages around the games: the dashboard (with its vacation switch), the lobby, quick play
and a new table. Each view is thin: it reads through games/dashboard.py or games/lobby.py, or
calls one state change."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from games.dashboard import (
    dashboard_seats,
    followed,
    invitations_for,
    recent_finished_seats,
    vacation_of,
)
from games.lobby import WATCH_LIMIT, games_to_watch, open_games
from games.models import Game, QuickPlaySeek
from games.play import actions, quickplay, vacations
from games.play.errors import ActionRefused
from games.play.forms import CreateGameForm, LobbyFilterForm, QuickPlayForm, VacationForm
from games.play.rate_limits import GAME_CREATION, SEAT_CHANGES, per_player


@login_required
def dashboard(request):
    return render(
        request,
        "games/dashboard.html",
        {
            "seats": dashboard_seats(request.user),
            "finished": recent_finished_seats(request.user),
            "invitations": invitations_for(request.user),
            "vacation": vacation_of(request.user),
            "followed": followed(request.user),
        },
    )


@login_required
@require_POST
def vacation(request):
    """The dashboard's vacation switch: go on vacation for some days, or come back."""
    try:
        if request.POST.get("end"):
            if vacations.end_vacation(user_id=request.user.pk) is not None:
                messages.success(request, _("Welcome back: your clocks run again."))
        else:
            form = VacationForm(request.POST)
            if not form.is_valid():
                raise ActionRefused(_("Give the number of days, e.g. 7."), code="bad_request")
            user = vacations.start_vacation(
                user_id=request.user.pk, length=form.cleaned_data["days"]
            )
            until = formats.date_format(timezone.localtime(user.vacation_until), "D j M, H:i")
            messages.success(request, _("You are on vacation until %(until)s.") % {"until": until})
    except ActionRefused as refusal:
        messages.error(request, refusal.message)
    return redirect("dashboard")


@login_required
@require_GET
def lobby(request):
    filters = LobbyFilterForm(request.GET or None)
    criteria = filters.cleaned_data if filters.is_valid() else {}
    games = open_games(
        player_count=criteria.get("player_count"),
        rated=criteria.get("rated"),
        viewer=request.user,
    )
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "games/lobby.html",
        {
            "page": Paginator(games, OPEN_TABLES_PER_PAGE).get_page(request.GET.get("page")),
            "query": query.urlencode(),
            "filters": filters,
            "playing": games_to_watch(request.user),
            "watch_limit": WATCH_LIMIT,
            "quick_play": QuickPlayForm(prefix=QUICK_PLAY),
            "seeking": QuickPlaySeek.objects.filter(user=request.user).first(),
        },
    )


# The quick-play form's fields are named apart from the lobby's filters (both ask the players).
QUICK_PLAY = "quick"


@login_required
@require_POST
@per_player(SEAT_CHANGES)
def quick_play(request):
    """Ask quick play for a game (or, with `cancel`, stop asking): back to the lobby, or to the
    game if it was made at once."""
    if "cancel" in request.POST:
        if quickplay.cancel_seek(user=request.user):
            messages.info(request, _("You stopped looking for a game."))
        return redirect("games:lobby")
    form = QuickPlayForm(request.POST, prefix=QUICK_PLAY)
    if not form.is_valid():
        messages.error(request, _("Choose the players, the time per move and whether it is rated."))
        return redirect("games:lobby")
    try:
        made = quickplay.seek(user=request.user, **form.cleaned_data)
    except ActionRefused as refusal:
        messages.error(request, refusal.message)
        return redirect("games:lobby")
    if made is not None:
        return redirect("games:game", made.pk)
    messages.info(request, _("Looking for players: you will be told when your game starts."))
    return redirect("games:lobby")


OPEN_TABLES_PER_PAGE = 25  # the newest first; a page draws in milliseconds however many wait


@login_required
@per_player(GAME_CREATION, counts=lambda response: response.status_code == 302)  # a game made
def create(request):
    form = CreateGameForm(request.POST or None, initial=_game_with(request.GET.get("with")))
    if request.method == "POST" and form.is_valid():
        try:
            game = actions.create_game(creator=request.user, **form.cleaned_data)
        except ActionRefused as refusal:
            form.add_error(None, refusal.message)
        else:
            return redirect("games:game", game.pk)
    return render(
        request,
        "games/create.html",
        {"form": form, "time_control_fields": CreateGameForm.time_control_fields},
    )


def _game_with(username) -> dict:
    """The create form filled in for a game with one player ("New game with ..." on their
    profile): two players, by invitation, them invited; a computer player seated instead."""
    if not username or not isinstance(username, str) or len(username) > 150:
        return {}
    player = User.objects.named(username).filter(is_active=True).first()
    if player is None:
        return {}
    if player.bot_level:
        return {"player_count": 2, f"{player.bot_level}_bots": 1}
    return {"player_count": 2, "access": Game.Access.INVITATION, "invitees": player.username}
