"""Game pages. Each view is thin: it parses the request, calls one function of games/play/actions/
or games/drawing/, and renders the same partials as every other way of drawing the game."""

import re
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from games import chat, seen
from games.access import can_view
from games.drawing import cache
from games.drawing.ahead import ahead_view
from games.drawing.cache.looks import (
    LOOKS_HEADER,
    compact,
    page_looks,
    pool_changes,
    seat_changes,
    status_change,
)
from games.drawing.status import status_piece
from games.drawing.view import Selection, as_seen_by, game_view, since_last_visit
from games.live.changes import page_id
from games.lobby import waiting_room
from games.models import Game
from games.play import actions, rematches
from games.play.errors import ActionRefused, StaleVersion
from games.play.forms import (
    ActionForm,
    InviteForm,
    QueueForm,
)
from games.play.rate_limits import (
    ACTIONS,
    GAME_CREATION,
    INVITATIONS,
    SEAT_CHANGES,
    per_player,
)
from games.play.visibility import visible_game_first
from games.state_store import load_state, read_game

# A refusal's HTTP status: 409 the page was stale, 403 not your game, 400 malformed, else 422.
REFUSAL_STATUS = {StaleVersion.code: 409, "not_a_player": 403, "bad_request": 400}
# The selection kept after an action, so a rotated tile stays selected for the next turn of it.
KEEP_SELECTION = {"rotate"}
# A click on one of the player's tiles (its button's id, htmx's HX-Trigger): picked up or put
# down, the game's address says so (templates/games/partials/space.html, tray_tile.html).
TILE_BUTTON = re.compile(r"my-(?:tray|space)-\d+")


def _signed_out_to_log_in(view):
    """A signed-out visitor whom the view would answer 404 (a private table, or no such game:
    the same answer for both, so nobody learns which private games exist) goes to the log-in
    page, and back here after it: an invitation's link works for an invitee not yet signed
    in. A signed-in user still gets the 404."""

    @wraps(view)
    def view_or_log_in(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except Http404:
            if request.user.is_authenticated:
                raise
            return redirect_to_login(request.get_full_path())

    return view_or_log_in


@_signed_out_to_log_in
def game_page(request, game_id):
    game, seats = _viewable_game(request, game_id)
    if game.is_waiting or game.status == Game.Status.CANCELLED:
        return _waiting_room(request, game)
    selection = Selection.parse(request.GET.get("sel"))
    view = game_view(game, request.user, selection, seats=seats)
    if request.htmx:
        return render(request, "games/partials/game.html", {"view": view})
    talk = chat.panel(game, request.user, seats)
    if view.viewer_seat is not None:  # a player opens the game: tell what happened meanwhile
        view = since_last_visit(view)
        seen.see_game(game_id=game.pk, user=request.user, version=game.version)
        chat.mark_read(game.pk, request.user, talk.newest)
    return render(request, "games/game.html", {"view": view, "chat": talk})


@require_GET
def move_log(request, game_id):
    """A page of the move log (?page=2: older turns), for the log's own buttons."""
    game, seats = _viewable_game(request, game_id)
    if game.is_waiting or game.status == Game.Status.CANCELLED:
        raise Http404("The game has not started.")
    view = game_view(game, request.user, seats=seats)
    page = request.GET.get("page", "1")
    page = int(page) if page.isascii() and page.isdigit() and len(page) < 6 else 1
    return render(
        request, "games/partials/move_log.html", {"view": view, "log": view.log_page(page)}
    )


@login_required
@require_POST
def dismiss_notices(request, game_id):
    """Put away the notices of what the server did for the player, as far as the page showed."""
    game, seats = _viewable_game(request, game_id)
    version = request.POST.get("version", "")
    if not (version.isascii() and version.isdigit() and len(version) < 11):
        return HttpResponseBadRequest("The version must be a number.")
    seen.dismiss_notices(game_id=game.pk, user=request.user, version=int(version))
    game, seats = read_game(game.pk)
    view = game_view(game, request.user, seats=seats)
    return render(request, "games/partials/my_notices.html", {"view": view})


def game_fragment(request, game_id):
    """The game area alone: for htmx selections and for a client that resyncs."""
    game, seats = _viewable_game(request, game_id)
    if game.is_waiting or game.status == Game.Status.CANCELLED:
        return HttpResponseClientRedirect(reverse("games:game", args=[game.pk]))
    selection = Selection.parse(request.GET.get("sel"))
    view = game_view(game, request.user, selection, seats=seats)
    looks = page_looks(request.headers.get(LOOKS_HEADER))
    if looks and view.viewer_seat is not None and _shown_version(request) == game.version:
        response = _selection_parts(request, view, looks)
    else:
        response = render(request, "games/partials/game.html", {"view": view})
    if request.htmx and TILE_BUTTON.fullmatch(request.htmx.trigger or ""):
        # The tile's button asks without an address of its own (live.js writes it): the answer
        # puts the selection in the address bar, as hx-push-url did.
        response["HX-Push-Url"] = _game_url(game, view.selection)
    return _drawing(response, view.game)


def _selection_parts(request, view, looks):
    """A tile picked up or put down on a page that shows the current version: the status and the
    pieces of the viewer's own board and tray whose look changed (the spaces it may go to), as a
    move's answer has them, instead of the whole game (issue 21)."""
    drawing = {"view": view, "user": request.user}
    own = [seat for seat in view.seats if seat.seat.number == view.viewer_seat.number]
    context = {
        "view": view,
        "change": None,
        "status": status_change(status_piece(drawing), looks),
        "pool_changes": "",
        "seats_changes": [seat_changes(drawing, seat, looks) for seat in own],
    }
    return _parts(request, context, "selection")


def _shown_version(request) -> int | None:
    """The version the page says it shows (its X-Page-Version), if it says one."""
    try:
        return int(request.headers.get("X-Page-Version", ""))
    except ValueError:
        return None


def _drawing(response, game):
    """Say which version a drawing of the whole game shows: a page that has moved on since the
    request left (a move's answer, a push) does not go back to it (live.js)."""
    response["X-Game-Drawn-Version"] = str(game.version)
    return response


@login_required
@require_POST
@per_player(ACTIONS)
def act(request, game_id):
    # Not @visible_game_first: a move is the site's most frequent request, held to its queries
    # (tests/games/test_cost_per_action.py), and its player sees the game. A refused move asks
    # first (`_refused`), so a hidden game answers 404 as a missing one.
    form = ActionForm.of_request(request)
    if not form.is_valid():
        return _refused(request, game_id, ActionRefused(form.error_text(), code="bad_request"))
    action = form.action()
    try:
        played = actions.play(
            game_id=game_id,
            user=request.user,
            action=action,
            seen_version=form.cleaned_data["version"],
            answered_page=page_id(request.headers.get("X-Page-Id")) if request.htmx else "",
        )
    except ActionRefused as refusal:
        return _refused(request, game_id, refusal)
    game = played.game
    if request.htmx and not played.events:  # nothing changed (an empty board cleared)
        return HttpResponse(status=204)
    selection = Selection()
    if action["type"] in KEEP_SELECTION:
        selection = Selection(space=action.get("space"))
    if not request.htmx:
        return redirect(_game_url(game, selection))
    view = _view_of_the_move(request, selection, played)
    if _page_is_one_behind(request, played):
        response = _changed_parts(request, view, played)
    else:  # other changes came in between, or the game ended: the whole game
        response = render(request, "games/partials/game.html", {"view": view})
    response["X-Game-Version"] = str(game.version)
    response["HX-Push-Url"] = _game_url(game, selection)
    return response


@login_required
@require_POST
@visible_game_first
@per_player(ACTIONS)
def resign(request, game_id):
    """Resign (the page asked the player to confirm)."""
    return _leaving(request, game_id, lambda: actions.resign(game_id=game_id, user=request.user))


@login_required
@require_POST
@visible_game_first
@per_player(ACTIONS)
def expel(request, game_id):
    """Vote to hand the seat `seat` (its number) to the server."""
    seat = request.POST.get("seat", "")
    if not (seat.isascii() and seat.isdigit() and len(seat) < 3):
        return _refused(request, game_id, ActionRefused(_("Say which seat."), code="bad_request"))
    return _leaving(
        request,
        game_id,
        lambda: actions.vote_to_expel(game_id=game_id, user=request.user, seat_number=int(seat)),
    )


def _leaving(request, game_id, change):
    """Answer a change of who plays (a resignation, a vote) with the whole game, as it is."""
    try:
        played = change()
    except ActionRefused as refusal:
        return _refused(request, game_id, refusal)
    game = played.game
    if not request.htmx:
        return redirect("games:game", game.pk)
    view = game_view(game, request.user, seats=played.seats, known_events=played.events)
    response = render(request, "games/partials/game.html", {"view": view})
    response["X-Game-Version"] = str(game.version)
    return response


@login_required
@require_POST
@visible_game_first
@per_player(ACTIONS)
def queue(request, game_id):
    """Queue the player's next draft (or clear it): answered with their Drafting-ahead panel."""
    form = QueueForm.of_request(request)
    try:
        if not form.is_valid():
            raise ActionRefused(form.error_text(), code="bad_request")
        queued = actions.queue_drafts(
            game_id=game_id,
            user=request.user,
            tiles=form.cleaned_data["tiles"],
            confirm=form.cleaned_data["confirm"],
            seen_version=form.cleaned_data["version"],
            answered_page=page_id(request.headers.get("X-Page-Id")) if request.htmx else "",
        )
    except ActionRefused as refusal:
        return _queue_refused(request, game_id, refusal)
    if not request.htmx:
        return redirect("games:game", game_id)
    state = load_state(queued.game, queued.seats)
    ahead = ahead_view(queued.game, state, queued.seat)
    return render(request, "games/partials/draft_ahead.html", {"ahead": ahead})


@login_required
@require_POST
@visible_game_first
@per_player(SEAT_CHANGES)
def join(request, game_id):
    token = request.POST.get("token") or None
    return _lobby_action(
        request,
        game_id,
        lambda: actions.join_game(game_id=game_id, user=request.user, invite_token=token),
    )


@login_required
@per_player(SEAT_CHANGES)
def join_by_link(request, token):
    game = get_object_or_404(Game, invite_token=token)
    if request.method == "POST":
        return _lobby_action(
            request,
            game.pk,
            lambda: actions.join_game(game_id=game.pk, user=request.user, invite_token=token),
        )
    if game.status in (Game.Status.PLAYING, Game.Status.ENDED):
        return redirect("games:game", game.pk)  # too late to join; anyone may watch it
    return _waiting_room(request, game, token=token)


@login_required
@require_POST
@visible_game_first
@per_player(SEAT_CHANGES)
def leave(request, game_id):
    return _lobby_action(
        request, game_id, lambda: actions.leave_game(game_id=game_id, user=request.user)
    )


@login_required
@require_POST
@visible_game_first
@per_player(SEAT_CHANGES)
def start(request, game_id):
    return _lobby_action(
        request, game_id, lambda: actions.start_game(game_id=game_id, user=request.user)
    )


@login_required
@require_POST
@visible_game_first
@per_player(SEAT_CHANGES)
def cancel(request, game_id):
    return _lobby_action(
        request, game_id, lambda: actions.cancel_game(game_id=game_id, user=request.user)
    )


@login_required
@require_POST
@visible_game_first
@per_player(SEAT_CHANGES)
def decline(request, game_id):
    """Say no to an invitation: back to the dashboard (the table may be gone: a rematch is
    called off)."""
    try:
        game = actions.decline_invitation(game_id=game_id, user=request.user)
    except ActionRefused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.info(request, _("You declined the invitation to %(game)s.") % {"game": game.title})
    # A button posted by htmx (a rematch's Decline, on the ended game's page or any page's
    # notice): the page it was on, drawn again, says so.
    return HttpResponseClientRefresh() if request.htmx else redirect("dashboard")


@login_required
@require_POST
@visible_game_first
@per_player(GAME_CREATION)  # every ask counts, as a new game would
def rematch(request, game_id):
    """Ask for a rematch of an ended game: to the rematch's table (the one already asked for,
    if another player was first)."""
    try:
        offered = rematches.offer_rematch(game_id=game_id, user=request.user)
    except ActionRefused as refusal:
        messages.error(request, refusal.message)
        offered = None
    url = reverse("games:game", args=[offered.pk if offered else game_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
@visible_game_first
@per_player(INVITATIONS)
def invite(request, game_id):
    form = InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give the username of the player to invite."))
        return redirect("games:game", game_id)
    username = form.cleaned_data["username"]

    def invite_them():
        actions.invite_player(game_id=game_id, inviter=request.user, username=username)
        messages.success(request, _("%(player)s is invited.") % {"player": username})

    return _lobby_action(request, game_id, invite_them)


# --- helpers -----------------------------------------------------------------------------------


def _viewable_game(request, game_id) -> tuple[Game, list]:
    """Return the game and its seats (read together), or 404 to whoever may not see it."""
    try:
        game, seats = read_game(game_id)
    except Game.DoesNotExist:
        raise Http404("No such game.") from None
    if not can_view(game, request.user, seats):
        raise Http404("No such game.")  # an invitation-only table does not reveal itself
    return game, seats


def _waiting_room(request, game, token=None):
    room = waiting_room(game, request.user)
    invite_link = None
    if room["seated"]:
        invite_link = request.build_absolute_uri(
            reverse("games:join_by_link", args=[game.invite_token])
        )
    return render(
        request,
        "games/waiting.html",
        {
            **room,
            "token": token,
            "invite_link": invite_link,
            "invite_form": InviteForm(),
            # Its socket shows the seats live, if the viewer may watch the table (a visitor with
            # the link to an invitation table may not before taking a seat).
            "watchable": can_view(game, request.user),
        },
    )


def _lobby_action(request, game_id, change):
    try:
        change()
    except ActionRefused as refusal:
        messages.error(request, refusal.message)
    url = reverse("games:game", args=[game_id])
    # A button posted by htmx (a rematch's Accept, drawn by a push): the browser goes there.
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _page_is_one_behind(request, played) -> bool:
    """Whether the mover's page showed the version just before this move (its X-Page-Version)."""
    shown = _shown_version(request)
    change = played.change
    return (
        shown is not None
        and change is not None
        and not change.ended
        and (shown == change.version - 1)
    )


def _view_of_the_move(request, selection, played):
    """The game as the mover sees it after their move: from its view drawn for no one, if the
    move's pushes drew one here (games/drawing/updates.py `draw_ahead`) and the answer keeps
    no selection; else drawn for them."""
    game = played.game
    found = cache.seen(game.pk, game.version)
    if found is not None and selection == Selection():
        return as_seen_by(found, request.user)
    return game_view(
        game,
        request.user,
        selection,
        seats=played.seats,
        known_events=played.events,
        online=played.online,
    )


def _changed_parts(request, view, played):
    """Answer a move with only what it changed, each swapped by its id: the status if it looks
    different, and of the pool (if it changed) and the boards it touched only the pieces
    (spaces, tray, columns...) whose look differs from what the page says it shows
    (games/drawing/cache/looks.py)."""
    change = played.change
    numbers = set(change.seats) | set(change.heads) | {played.seat.number}
    looks = page_looks(request.headers.get(LOOKS_HEADER))
    drawing = {"view": view, "user": request.user}
    news = view.log_first_page.news_parts(view.game.version) if change.logged else {}
    context = {
        **news,
        "view": view,
        "change": change,
        "status": status_change(status_piece(drawing), looks),
        "pool_changes": pool_changes(drawing, looks) if change.pool else "",
        "seats_changes": [
            seat_changes(drawing, seat, looks) for seat in view.seats if seat.seat.number in numbers
        ],
    }
    return _parts(request, context, "changed")


def _parts(request, context, kind: str):
    """Parts of the game swapped by their ids (out of band) instead of the whole game,
    compacted; `kind` ("changed", "selection") tells the page which they are."""
    response = HttpResponse(
        compact(render_to_string("games/partials/changed.html", context, request))
    )
    response["HX-Reswap"] = "none"
    response["X-Game-Parts"] = kind
    return response


def _refused(request, game_id, refusal: ActionRefused):
    """Answer a refused action with the current game and the reason beside its cause."""
    game = get_object_or_404(Game, pk=game_id)
    if not can_view(game, request.user):
        raise Http404("No such game.")  # a private table does not reveal itself
    if not request.htmx:
        messages.error(request, refusal.message)
        return redirect("games:game", game.pk)
    started = game.status in (Game.Status.PLAYING, Game.Status.ENDED)
    if not started:
        return render(
            request, "games/partials/refusal.html", {"message": refusal.message}, status=403
        )
    view = game_view(game, request.user)
    view.error, view.error_space, view.error_tile = refusal.message, refusal.space, refusal.tile
    status = REFUSAL_STATUS.get(refusal.code, 422)
    response = render(request, "games/partials/game.html", {"view": view}, status=status)
    return _drawing(response, view.game)


def _queue_refused(request, game_id, refusal: ActionRefused):
    """Answer a refused queue with the panel as it is now and the reason in it."""
    if not request.htmx:
        messages.error(request, refusal.message)
        return redirect("games:game", game_id)
    game, seats = read_game(game_id) if Game.objects.filter(pk=game_id).exists() else (None, [])
    seat = next((seat for seat in seats if seat.user_id == request.user.pk), None)
    if game is None or seat is None or not game.is_playing:
        return render(
            request, "games/partials/refusal.html", {"message": refusal.message}, status=403
        )
    ahead = ahead_view(game, load_state(game, seats), seat, error=refusal.message)
    status = REFUSAL_STATUS.get(refusal.code, 422)
    return render(request, "games/partials/draft_ahead.html", {"ahead": ahead}, status=status)


def _game_url(game, selection) -> str:
    url = reverse("games:game", args=[game.pk])
    return f"{url}?sel={selection}" if str(selection) else url
