"""The table talk's endpoints: write, delete one's own, say what the page has shown. Each answers
htmx with the message drawn (chat.js places it, as it places a pushed one) or with the refusal
in words (422, text), and a plain form post by going back to the game's talk."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import chat, selectors
from games.live import drawing
from games.models import Game
from games.play import chat as talk
from games.play.errors import ActionRefused
from games.play.rate_limits import CHAT, per_player
from games.play.visibility import visible_game_first


def _back_to_talk(game_id: int):
    return redirect(reverse("games:game", args=[game_id]) + "#chat")


def _visible_game(request, game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not selectors.can_view(game, request.user):
        raise Http404("No such game.")  # a private table does not reveal itself
    return game


def _refused(request, game_id: int, refusal: ActionRefused):
    if not request.htmx:
        messages.error(request, refusal.message)
        return _back_to_talk(game_id)
    status = 403 if refusal.code in ("not_a_player", "muted", "not_yours") else 422
    return HttpResponse(refusal.message, status=status, content_type="text/plain; charset=utf-8")


def messages_or_send(request, game_id):
    """GET: the newest messages as the viewer may read them; POST: write one."""
    if request.method == "POST":
        return send(request, game_id)
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET", "POST"])
    game = _visible_game(request, game_id)
    seats = list(game.seats.all())
    context = {"chat": chat.panel(game, request.user, seats)}
    return render(request, "games/partials/chat_messages.html", context)


@login_required
@require_POST
@visible_game_first
@per_player(CHAT)
def send(request, game_id):
    text = request.POST.get("text")
    return _answer(
        request, game_id, lambda: talk.send_message(game_id=game_id, user=request.user, text=text)
    )


@login_required
@require_POST
@visible_game_first
def delete(request, game_id, message_id):
    return _answer(
        request,
        game_id,
        lambda: talk.delete_message(game_id=game_id, message_id=message_id, user=request.user),
    )


def _answer(request, game_id: int, change):
    """Make the change; answer htmx with its message drawn for the viewer (chat.js places it),
    a plain form by going back to the talk."""
    try:
        said = change()
    except ActionRefused as refusal:
        return _refused(request, game_id, refusal)
    if not request.htmx:
        return _back_to_talk(game_id)
    event = chat.message_event(said.message, said.author_name)
    return HttpResponse(drawing.draw_chat(event, request.user, game_id))


@login_required
@require_POST
@visible_game_first
def read(request, game_id):
    """The page showed the talk up to message `up_to` while visible."""
    up_to = request.POST.get("up_to", "")
    if not (up_to.isascii() and up_to.isdigit() and len(up_to) < 19):
        return HttpResponse(_("Say up to which message."), status=400, content_type="text/plain")
    talk.read_chat(game_id=game_id, user=request.user, up_to=int(up_to))
    return HttpResponse(status=204)
