"""The tournaments' pages. Each view is thin: it reads through games/tournaments/reading.py or
makes one change of games/tournaments/actions/, and draws the same partials as the live
update (`fragment`)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.play.errors import ActionRefused
from games.play.rate_limits import GAME_CREATION, INVITATIONS, SEAT_CHANGES, per_player

from . import actions, reading
from .forms import TournamentForm
from .models import Tournament

FINISHED_PAGE = 20


@require_GET
def tournament_list(request):
    """Open for registration, in play, and finished (paged), the public ones; and the
    visitor's own, whatever their access."""
    listed = Tournament.objects.select_related("created_by").order_by("starts_at")
    public = listed.filter(access=Tournament.Access.PUBLIC)
    finished = public.filter(status=Tournament.Status.FINISHED).order_by("-ended_at")
    page = Paginator(finished, FINISHED_PAGE).get_page(request.GET.get("page"))
    mine = []
    if request.user.is_authenticated:
        mine = list(
            listed.filter(entries__user=request.user)
            .exclude(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
            .distinct()
        )
    return render(
        request,
        "tournaments/list.html",
        {
            "open": _with_counts(public.filter(status=Tournament.Status.OPEN)),
            "running": _with_counts(public.filter(status=Tournament.Status.RUNNING)),
            "page": page,
            "mine": mine,
        },
    )


def _with_counts(tournaments):
    return tournaments.annotate(entrants=Count("entries"))


def _tournament(tournament_id) -> Tournament:
    tournament = Tournament.objects.select_related("created_by").filter(pk=tournament_id).first()
    if tournament is None:
        raise Http404
    return tournament


def page_context(request, tournament: Tournament) -> dict:
    """Everything the page and its live part draw, read once."""
    read = reading.read(tournament)
    user = request.user
    mine = read.row_of(user.pk) if user.is_authenticated else None
    entry = mine.entry if mine else None
    token = request.GET.get("invite") or ""
    may_register = (
        user.is_authenticated
        and tournament.is_open
        and entry is None
        and (
            tournament.access == Tournament.Access.PUBLIC
            or tournament.created_by_id == user.pk
            or token == tournament.invite_token
            or tournament.invitations.filter(user=user).exists()
        )
    )
    problem = ""
    if may_register:
        problem = actions.eligibility_problem(tournament, user)
    organiser = user.is_authenticated and tournament.created_by_id == user.pk
    rounds = reading.rounds_of(tournament, read.games) if tournament.started_at else []
    return {
        "tournament": tournament,
        "read": read,
        "sections": read.sections,
        "rounds": rounds,
        "entry": entry,
        "mine": mine,
        "may_register": may_register and not problem,
        "not_eligible": problem,
        "invite_token": token if may_register else "",
        "organiser": organiser,
        "invite_url": request.build_absolute_uri(
            f"{reverse('tournaments:detail', args=[tournament.pk])}"
            f"?invite={tournament.invite_token}"
        )
        if organiser and tournament.access == Tournament.Access.INVITATION
        else "",
        "entrants": len(read.entries),
        "first_tables": actions.table_sizes_for(tournament, len(read.entries))
        if tournament.is_open and tournament.is_swiss
        else (),
        "points_words": reading.points_words,
    }


@require_GET
def detail(request, tournament_id):
    tournament = _tournament(tournament_id)
    return render(request, "tournaments/detail.html", page_context(request, tournament))


@require_GET
def fragment(request, tournament_id):
    """The live part of the page (standings, crosstables, rounds), as the page first drew it:
    fetched again when the page hears the tournament changed (games/tournaments/live.py)."""
    tournament = _tournament(tournament_id)
    return render(request, "tournaments/partials/live.html", page_context(request, tournament))


@login_required
@per_player(GAME_CREATION, counts=lambda response: response.status_code == 302)
def create(request):
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = actions.create_tournament(
                organiser=request.user, **form.action_arguments()
            )
        except ActionRefused as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(
                request,
                _("Your tournament is open for registration. Register yourself if you play."),
            )
            return redirect("tournaments:detail", tournament.pk)
    return render(request, "tournaments/create.html", {"form": form})


def _change(request, tournament_id, change, done: str):
    try:
        change()
    except ActionRefused as refusal:
        messages.error(request, refusal.message)
    else:
        if done:
            messages.success(request, done)
    return redirect("tournaments:detail", tournament_id)


@login_required
@require_POST
@per_player(SEAT_CHANGES)
def register(request, tournament_id):
    return _change(
        request,
        tournament_id,
        lambda: actions.register(
            tournament_id=tournament_id,
            user=request.user,
            invite_token=request.POST.get("invite") or None,
        ),
        _("You are registered. We will tell you your table when the tournament starts."),
    )


@login_required
@require_POST
@per_player(SEAT_CHANGES)
def withdraw(request, tournament_id):
    return _change(
        request,
        tournament_id,
        lambda: actions.withdraw(tournament_id=tournament_id, user=request.user),
        _("You have withdrawn."),
    )


@login_required
@require_POST
@per_player(SEAT_CHANGES)
def start(request, tournament_id):
    return _change(
        request,
        tournament_id,
        lambda: actions.start(tournament_id=tournament_id, by=request.user),
        _("The tournament has started."),
    )


@login_required
@require_POST
@per_player(SEAT_CHANGES)
def cancel(request, tournament_id):
    return _change(
        request,
        tournament_id,
        lambda: actions.cancel(tournament_id=tournament_id, by=request.user),
        _("The tournament is cancelled; its entrants are told."),
    )


@login_required
@require_POST
@per_player(INVITATIONS)
def invite(request, tournament_id):
    username = (request.POST.get("username") or "").strip()[:150]
    return _change(
        request,
        tournament_id,
        lambda: actions.invite(tournament_id=tournament_id, by=request.user, username=username),
        _("%(player)s is invited.") % {"player": username},
    )
