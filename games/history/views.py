"""Pages about the past: a player's archive of games, the replay of a finished game, the
leaderboard. Each view parses the request, calls games/history/, and renders; with htmx it
answers with the part of the page that changes, and every link keeps a real href."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy
from django.views.decorators.http import require_GET

from accounts import privacy
from accounts.models import User
from games import access, chat
from games.history.archive import (
    ARCHIVE_PAGE_SIZE,
    LEADERBOARD_MIN_GAMES,
    LEADERBOARD_PAGE_SIZE,
    RESULT_CHOICES,
    archive_seats,
    leaderboard_page,
    paginate,
)
from games.history.replay import ReplayPage
from games.models import Game
from games.review.display import replay_review


class ArchiveFilterForm(forms.Form):
    result = forms.ChoiceField(
        label=gettext_lazy("Result"),
        choices=[("", gettext_lazy("any result")), *RESULT_CHOICES],
        required=False,
    )
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        choices=[("", gettext_lazy("any number of players"))]
        + [
            (n, ngettext_lazy("%(count)d player", "%(count)d players", "count") % {"count": n})
            for n in range(2, 6)
        ],
        coerce=int,
        empty_value=None,
        required=False,
    )
    # Translators: the archive's filter: the games played against this player.
    opponent = forms.CharField(max_length=150, required=False, label=gettext_lazy("Against"))

    def __init__(self, *args, viewer, **kwargs):
        super().__init__(*args, **kwargs)
        self.viewer = viewer

    def clean_opponent(self):
        name = self.cleaned_data["opponent"].strip()
        if not name:
            return None
        opponent = User.objects.named(name).first()
        if opponent is None:
            raise forms.ValidationError(_("There is no player called “%(name)s”.") % {"name": name})
        if not privacy.shows_games_to(opponent, self.viewer):
            # Their games against this player would be theirs shown (accounts/privacy.py).
            raise forms.ValidationError(
                _("%(player)s shows their games to signed-in players only.")
                % {"player": opponent.username}
            )
        return opponent


@require_GET
def archive(request, username):
    player = get_object_or_404(User.objects.named(username), is_active=True, is_guest=False)
    if not privacy.shows_games_to(player, request.user):
        context = {"player": player, "games_hidden": True, "is_me": False}
        if request.htmx and request.htmx.target == "archive":
            return render(request, "games/partials/games_hidden.html", context)
        return render(request, "games/archive.html", context)
    filters = ArchiveFilterForm(request.GET or None, viewer=request.user)
    if filters.is_bound and not filters.is_valid():
        seats = archive_seats(player, viewer=request.user).none()
    else:
        criteria = filters.cleaned_data if filters.is_bound else {}
        seats = archive_seats(
            player,
            viewer=request.user,
            result=criteria.get("result") or "",
            player_count=criteria.get("players"),
            opponent=criteria.get("opponent"),
        )
    page = paginate(seats, request.GET.get("page"), ARCHIVE_PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "player": player,
        "page": page,
        "filters": filters,
        "query": query.urlencode(),
        "is_me": request.user.pk == player.pk,
    }
    if request.htmx and request.htmx.target == "archive":
        return render(request, "games/partials/archive_list.html", context)
    return render(request, "games/archive.html", context)


@login_required
def my_games(request):
    url = reverse("archive", args=[request.user.username])
    query = request.GET.urlencode()  # the archive's filters and page, kept
    return redirect(f"{url}?{query}" if query else url)


@require_GET
def leaderboard(request):
    page = leaderboard_page(request.GET.get("page"), LEADERBOARD_PAGE_SIZE, request.user)
    return render(
        request,
        "games/leaderboard.html",
        {"page": page, "min_games": LEADERBOARD_MIN_GAMES},
    )


@require_GET
def replay(request, game_id):
    """Step `?step=N` of a finished game (0 is the deal), or the start of `?turn=T`."""
    game = get_object_or_404(Game, pk=game_id)
    if not access.can_view(game, request.user):
        raise Http404("No such game.")  # a private table does not reveal itself
    if game.status != Game.Status.ENDED:
        if game.is_playing:
            return redirect("games:game", game.pk)
        raise Http404("Only finished games have a replay.")
    page = ReplayPage(game)
    if "turn" in request.GET:
        step = page.step_of_turn(request.GET["turn"])
        step = page.last_step if step is None else step
    else:
        step = page.clamp(request.GET.get("step", page.last_step))
    context = {
        "view": page.view_at(step),
        "replay": page,
        "step": step,
        "turn": page.turn_at(step),
        "description": page.describe(step),
        "replaying": True,
        "chat": chat.panel(game, request.user, page.seats, versions=page.versions_at(step)),
        "review": replay_review(game, page.seats, step),  # the engine's (games/review/)
    }
    url = f"{reverse('games:replay', args=[game.pk])}?step={step}"
    if request.htmx:
        response = render(request, "games/partials/replay_step.html", context)
        response["HX-Push-Url"] = url
        return response
    return render(request, "games/replay.html", context)
