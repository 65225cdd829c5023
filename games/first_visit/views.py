"""The first visit's pages: "Play now" and the guided game (for a visitor they make a guest
first), the guide beside a guided game, and a guest's way out. Thin: accounts/guests.py makes
and signs in the guest, guests.py and tutorial.py do the rest."""

from django.conf import settings
from django.contrib.auth import logout
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts import guests as guest_accounts
from accounts import lockout
from games import rules
from games.models import Game
from games.play.errors import ActionRefused
from games.play.rate_limits import GAME_CREATION, seconds_to_wait
from games.play.rate_limits import too_many as too_many_games
from games.state_store import load_state, read_game
from infra import rate_limits as limits
from infra.words import wait_words

from . import guests, showcase, tutorial
from .models import Guide


@require_POST
def play_now(request):
    """A game against one computer player (easy, or strong or expert if asked), started at
    once; a visitor plays it as a guest, signed in by this press."""
    return _start(request, guided=False)


@require_POST
def learn(request):
    """The guided first game (tutorial.py), for a visitor as a guest."""
    return _start(request, guided=True)


def _start(request, *, guided: bool):
    level = guests.level_asked(request.POST.get("level"))
    if level is None:  # before a guest is made for it
        message = _("There is no such computer player.")
        return render(request, "400.html", {"message": message}, status=400)
    if not request.user.is_authenticated:
        refusal = _guests_limited(request)
        if refusal is not None:
            return refusal
        guest_accounts.sign_in_as_guest(request)
    else:
        wait = seconds_to_wait(request, GAME_CREATION)
        if wait is not None:
            return too_many_games(request, GAME_CREATION, wait)
    try:
        game = guests.start_game_against_computer(
            request.user,
            "easy" if guided else level,
            seed=tutorial.TUTORIAL_SEED if guided else None,
            layout=tutorial.TUTORIAL_LAYOUT if guided else rules.STANDARD,
        )
    except ActionRefused as refusal:  # no computer player free: the site says so
        return render(request, "429.html", {"message": refusal.message}, status=503)
    if guided:
        Guide.objects.create(player=request.user, game=game)
    return redirect("games:game", game.pk)


def _guests_limited(request):
    rates = limits.parse_rates(settings.GUEST_RATE_LIMIT)
    seconds = limits.wait_then_record("guest", rates, lockout.client_address(request))
    if seconds <= 0:
        return None
    return limits.too_many(
        request,
        seconds,
        _("Too many games for guests from your address. Try again in %(wait)s, or sign up.")
        % {"wait": wait_words(seconds)},
    )


def _guide_of(request, game_id) -> Guide:
    if not request.user.is_authenticated:
        raise Http404("No such guide.")
    return get_object_or_404(Guide, game_id=game_id, player=request.user)


@require_GET
def guide(request, game_id):
    """The guide of a guided game as it stands (its page's script asks after every change)."""
    return render(request, "first_visit/guide.html", guide_context(_guide_of(request, game_id)))


@require_POST
def guide_step(request, game_id):
    """The guide's buttons: "I see it" (the score), skip (put the guide away), show it again."""
    found = _guide_of(request, game_id)
    what = request.POST.get("do", "")
    if what == "score_seen":
        found.score_seen = True
    elif what == "skip":
        found.skipped = True
    elif what == "resume":
        found.skipped = False
    else:
        return render(request, "400.html", status=400)
    found.save(update_fields=["score_seen", "skipped"])
    if request.htmx:
        return render(request, "first_visit/guide.html", guide_context(found))
    return redirect("games:game", game_id)


def guide_context(found: Guide) -> dict:
    game, seats = read_game(found.game_id)
    seat = next(seat for seat in seats if seat.user_id == found.player_id)
    state = load_state(game, seats)
    return {
        "guide": found,
        "game": game,
        "progress": tutorial.progress(game, seat, state, found.score_seen),
        "steps": tutorial.STEPS,
    }


@require_POST
def leave(request):
    """A guest leaves: logged out, their account and games removed (guests.remove_on_logout)."""
    if request.user.is_authenticated:
        logout(request)
    return redirect("home")


def first_steps_context(request, game: Game) -> dict:
    """What the game page shows above the game for a newcomer: a guest's "Sign up to keep this
    game", the guide of a guided game, and to a guest who has had none the offer of one. A
    player's page of any other game reads nothing more (a guided game is known by its seed:
    the page's cost per load is held, tests/games/test_query_counts.py); their offer is on the
    dashboard (`guide_offer`)."""
    user = request.user
    guest = guest_accounts.is_guest(user)
    context = {"guest": guest, "guest_days": settings.GUEST_DAYS}
    if not user.is_authenticated:
        return context
    if game.seed == tutorial.TUTORIAL_SEED:
        found = Guide.objects.filter(game=game, player=user).first()
        if found is not None:
            return {**context, **guide_context(found)}
    if guest and not Guide.objects.filter(player=user).exists():
        context["offer_guide"] = True
    return context


def offers_guide(user) -> bool:
    """A new player is offered the guided game until they play one or say no thanks: while
    they have no guide and no game that ended."""
    if not user.is_authenticated or getattr(user, "is_bot", False):
        return False
    if Guide.objects.filter(player=user).exists():
        return False
    return not user.seats.filter(game__status=Game.Status.ENDED).exists()


@require_POST
def no_guide(request):
    """ "No thanks" to the guided game's offer: not offered again."""
    if request.user.is_authenticated and not Guide.objects.filter(player=request.user).exists():
        Guide.objects.create(player=request.user, skipped=True)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = "dashboard"
    return redirect(back or "dashboard")


def home_context(request) -> dict:
    """The home page of a visitor, or of a guest (who may have a game to go back to)."""
    guest_game = None
    if guest_accounts.is_guest(request.user):
        guest_game = (
            Game.objects.filter(seats__user=request.user, status=Game.Status.PLAYING)
            .order_by("-pk")
            .first()
        )
    return {
        "showcase": showcase.showcase_html(),
        "guest_game": guest_game,
        **showcase.home_lists(),
    }
