"""The table talk through the API (issue 34), as lichess's Board API has it: a game's messages
as the caller may read them, and writing one. The endpoints call the site's own functions
(games/chat.py says who may read and write and hides the messages of players in a block with
the reader; games/play/chat.py writes, refusing a muted player and a message that is too long),
and writing counts against the site's own CHAT_RATE_LIMIT. The stream carries each message as
it is written (a `chat` line, games/api/stream.py)."""

from datetime import datetime

from ninja import Field as F
from ninja import Query, Router, Schema, Status
from pydantic import ConfigDict

from accounts.models import User
from games import chat, selectors
from games.models import ChatMessage
from games.play import chat as talk
from games.play.rate_limits import CHAT
from games.state_store import read_game

from . import schemas, shapes
from .auth import PLAY, READ
from .errors import ApiRefusal, Refusal, not_found
from .playing import _limit, _run

router = Router()
REFUSALS = {
    400: Refusal,
    401: Refusal,
    403: Refusal,
    404: Refusal,
    409: Refusal,
    422: Refusal,
    429: Refusal,
}


class MessageOut(Schema):
    id: int = F(description="Newer messages have greater ids.")
    author: schemas.Player
    text: str = F(description="Plain text on one line, at most 500 characters.")
    at: datetime
    version: int = F(description="The game's version when it was written.")


class Talk(Schema):
    readable: bool = F(
        description="Whether you may read it: its players always; people watching unless the "
        "table keeps its talk to its players."
    )
    writable: bool = F(description="Whether you may write in it now: a player of a started game.")
    messages: list[MessageOut] = F(
        description="The newest messages (at most 60), oldest first, without those of players "
        "in a block with you."
    )


class NewMessage(Schema):
    model_config = ConfigDict(strict=True)
    text: str = F(min_length=1, max_length=2000, description="At most 500 characters once cleaned.")


@router.get("/games/{game_id}/chat", response={200: Talk, **REFUSALS}, tags=["chat"], auth=READ)
def messages(request, game_id: int, after: int = Query(0, ge=0, le=2**63 - 1)):
    """The game's table talk as you may read it; with `after`, only the messages after that
    one. For a player, reading it marks it read, as the game page does."""
    user = request.auth.user
    try:
        game, seats = read_game(game_id)
    except Exception:
        raise not_found() from None
    if not selectors.can_view(game, user, seats):
        raise not_found()
    panel = chat.panel(game, user, seats)
    shown = [m for m in panel.messages if m.event["id"] > after]
    if panel.player and panel.newest:
        chat.mark_read(game.pk, user, panel.newest)
    versions = dict(
        ChatMessage.objects.filter(pk__in=[m.event["id"] for m in shown]).values_list(
            "pk", "version"
        )
    )
    authors = {
        user.pk: user
        for user in User.objects.filter(pk__in={m.event["author_id"] for m in shown}).only(
            "id", "username", "bot_level", "bot_owner"
        )
    }
    return {
        "readable": panel.readable,
        "writable": panel.writable,
        "messages": [
            {
                "id": m.event["id"],
                "author": shapes.player(authors[m.event["author_id"]]),
                "text": m.event["text"],
                "at": m.event["created"],
                "version": versions[m.event["id"]],
            }
            for m in shown
        ],
    }


@router.post(
    "/games/{game_id}/chat", response={201: MessageOut, **REFUSALS}, tags=["chat"], auth=PLAY
)
def write(request, game_id: int, new: NewMessage):
    """Write in the game's table talk (a player of a started game, not muted): one line of at
    most 500 characters, line breaks made spaces. Counted against the site's chat rate limit."""
    user = request.auth.user
    if not selectors.may_see_game(game_id, user):
        raise not_found()
    try:
        chat.clean_text(new.text)  # a message that cannot be sent is not counted
    except chat.BadText as error:
        raise ApiRefusal(400, "bad_request", str(error)) from None
    _limit(request, CHAT)
    said = _run(game_id, lambda: talk.send_message(game_id=game_id, user=user, text=new.text))
    message = said.message
    return Status(
        201,
        {
            "id": message.pk,
            "author": shapes.player(user),
            "text": message.text,
            "at": message.created_at,
            "version": message.version,
        },
    )
