import json
import time

from django.conf import settings
from django.db import transaction
from django.http import HttpResponse, HttpResponseForbidden, HttpResponseNotAllowed

from . import html, sender
from .models import Event, Game


def move(request, game_id):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    user = request.user
    if not user.is_authenticated:
        return HttpResponseForbidden("sign in")
    tile = request.POST.get("tile", "")[:8]
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        players = game.state["players"]
        if user.pk not in players:
            return HttpResponseForbidden("not your game")
        seat = players.index(user.pk)
        board = game.state.setdefault("boards", {}).setdefault(str(seat), [])
        board.append(tile)
        del board[:-25]
        game.version += 1
        game.save(update_fields=["state", "version"])
        Event.objects.create(game=game, seq=game.version, payload={"seat": seat, "tile": tile})
    version = game.version
    event = {
        "type": "game.move",
        "version": version,
        "seat": seat,
        "page": request.headers.get("X-Page-Id", ""),
        "sent": time.time(),
    }
    if settings.FLOOR_HTML == "template":
        # Drawn once for everyone but the mover, and forwarded by each socket as it is.
        push = html.table(game.state, seat, version, mine=False)
        event["text"] = json.dumps(
            {"type": "push", "version": version, "html": push}, separators=(",", ":")
        )
        answer = html.table(game.state, seat, version, mine=True)
    else:
        answer = html.board(seat, version)
    sender.submit(f"game-{game_id}", event)
    response = HttpResponse(answer)
    response["X-Game-Version"] = str(version)
    return response
