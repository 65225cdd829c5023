"""A game's table talk: who may read and write it, its text, and what each player has not read.

The talk is its players'. People watching read it too unless the table says not
(`Game.spectators_read_chat`); nobody else ever sees it, and a private table's watchers are its
invitees (games/access.py `can_view`). Messages are plain text, at most MAX_LENGTH characters
on one line: the pages escape them and make their links clickable (templatetags `chat_text`).
They are not events of the game: writing one changes no version, so nobody's move is refused
for it; each keeps the version it was written at, where the replay shows it.

Two players in a block (accounts/blocking.py, whoever blocked whom) never read each other's
messages: the panel leaves them out for its viewer, and so does each socket's push
(games/live/consumers.py `game_chat`); they count as nobody's unread.
"""

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import blocking
from accounts.models import Block
from games.models import ChatMessage, Game, Seat

MAX_LENGTH = 500
# How many of the newest messages a page shows (older ones stay in the replay).
SHOWN = 60
# Characters that reorder the text around them: in a message they could make it read as another.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class BadText(ValueError):
    """Why a message cannot be sent as written, in words for its author."""


def clean_text(text: str) -> str:
    """The message as it is kept: line breaks and tabs become spaces, the ends are trimmed.
    Refused: nothing left, more than MAX_LENGTH characters, a control character."""
    if not isinstance(text, str):
        raise BadText(_("Write a message first."))
    text = " ".join(text.replace("\r\n", "\n").replace("\t", " ").split("\n")).strip()
    if not text:
        raise BadText(_("Write a message first."))
    if len(text) > MAX_LENGTH:
        raise BadText(
            _("A message is at most %(most)d characters (%(count)d here).")
            % {"most": MAX_LENGTH, "count": len(text)}
        )
    for character in text:
        if unicodedata.category(character) == "Cc" or character in BIDI_CONTROLS:
            raise BadText(_("A message cannot hold control characters."))
    return text


def delete_window() -> timedelta:
    """How long after writing a message its author may delete it."""
    return timedelta(minutes=settings.CHAT_DELETE_MINUTES)


def deletable_until(message: ChatMessage):
    return message.created_at + delete_window()


def is_player(user, seats) -> bool:
    return user.is_authenticated and any(seat.user_id == user.pk for seat in seats)


def may_read(game: Game, user, seats) -> bool:
    """Whether `user`, who may view the game, may read its talk."""
    return is_player(user, seats) or game.spectators_read_chat


def may_write(game: Game, user, seats) -> bool:
    """Whether `user` may write in the talk now: a player of a started game, not a guest
    (accounts/guests.py)."""
    started = game.status in (Game.Status.PLAYING, Game.Status.ENDED)
    return started and is_player(user, seats) and not getattr(user, "is_guest", False)


def newest_messages(
    game_id: int, *, up_to_version: int | None = None, hidden_authors=()
) -> list[ChatMessage]:
    """The newest SHOWN messages not deleted, oldest first, with their authors; with
    `up_to_version`, those written by then (the replay's step); none by `hidden_authors` (ids:
    the players in a block with the reader)."""
    messages = ChatMessage.objects.filter(game_id=game_id, deleted_at=None)
    if hidden_authors:
        messages = messages.exclude(author_id__in=list(hidden_authors))
    if up_to_version is not None:
        messages = messages.filter(version__lte=up_to_version)
    newest = messages.select_related("author").order_by("-id")[:SHOWN]
    return list(reversed(newest))


def newest_id(game_id: int) -> int:
    return (
        ChatMessage.objects.filter(game_id=game_id).order_by("-id").values_list("id", flat=True)
    ).first() or 0


def unread_of_seat():
    """An expression for a Seat query: how many of the others' messages of its game the seat's
    player has not read (the dashboard's counts; one index range a seat: games_chat_by_game)."""
    unread = (
        ChatMessage.objects.filter(
            game_id=OuterRef("game_id"), id__gt=OuterRef("chat_read"), deleted_at=None
        )
        .exclude(author_id=OuterRef("user_id"))
        .exclude(_in_a_block(OuterRef(OuterRef("user_id"))))
        .order_by()
        .values("game_id")
        .annotate(count=Count("id"))
        .values("count")
    )
    return Coalesce(Subquery(unread), 0)


def _in_a_block(reader):
    """A filter on ChatMessage: its author and `reader` (an id or an OuterRef) are in a block,
    whoever blocked whom (one index probe a message)."""
    author = OuterRef("author_id")
    return Exists(
        Block.objects.filter(
            Q(blocker_id=reader, blocked_id=author) | Q(blocker_id=author, blocked_id=reader)
        )
    )


def unread_for_seat(seat: Seat) -> int:
    """How many of the others' messages the seat's player has not read."""
    return (
        ChatMessage.objects.filter(game_id=seat.game_id, deleted_at=None, id__gt=seat.chat_read)
        .exclude(author_id=seat.user_id)
        .exclude(_in_a_block(seat.user_id))
        .count()
    )


def mark_read(game_id: int, user, up_to: int) -> bool:
    """Record that `user` has read the talk up to message `up_to` (never backwards, never past
    the newest message); return whether that moved anything. One statement, no lock needed."""
    if not user.is_authenticated or up_to <= 0:
        return False
    up_to = min(up_to, newest_id(game_id))
    moved = Seat.objects.filter(game_id=game_id, user=user).filter(Q(chat_read__lt=up_to))
    return bool(moved.update(chat_read=up_to))


def message_event(message: ChatMessage, author_name: str) -> dict:
    """What a page needs to draw `message` for its viewer, without a query (games/live)."""
    return {
        "id": message.pk,
        "author_id": message.author_id,
        "author": author_name,
        "text": message.text,
        "created": message.created_at.isoformat(),
        "until": deletable_until(message).isoformat(),
        "deleted": message.deleted_at is not None,
    }


@dataclass(frozen=True)
class Shown:
    """A message as one viewer sees it."""

    event: dict
    mine: bool
    deletable: bool
    fresh: bool = False  # written at the replay's step
    reportable: bool = False  # another's, to a signed-in viewer (games/play/reports.py)


@dataclass(frozen=True)
class Panel:
    """The table talk as one viewer sees it (templates/games/partials/chat.html)."""

    game_id: int
    readable: bool
    writable: bool
    player: bool
    muted: bool
    messages: list[Shown]
    newest: int
    max_length: int = MAX_LENGTH


def shown(event: dict, viewer, now=None) -> Shown:
    mine = viewer.is_authenticated and event["author_id"] == viewer.pk
    now = now or timezone.now()
    reportable = viewer.is_authenticated and not mine
    deletable = mine and now < datetime.fromisoformat(event["until"])
    return Shown(event, mine, deletable, reportable=reportable)


def panel(game: Game, viewer, seats, *, versions: tuple[int, int | None] | None = None) -> Panel:
    """The talk of `game` for `viewer` (who may view the game); with `versions`, a replay's
    step (from, until: games/history/replay.py `versions_at`), as it was before `until`, the
    messages written from `from` on marked fresh (nothing is written or deleted there)."""
    readable = may_read(game, viewer, seats)
    live = versions is None
    until = None if live or versions[1] is None else versions[1] - 1
    messages = []
    if readable:
        hidden = blocking.blocked_ids(viewer.pk) if viewer.is_authenticated else ()
        messages = newest_messages(game.pk, up_to_version=until, hidden_authors=hidden)
    now = timezone.now()
    muted = bool(getattr(viewer, "chat_muted", False))
    return Panel(
        game_id=game.pk,
        readable=readable,
        writable=live and may_write(game, viewer, seats) and not muted,
        player=is_player(viewer, seats),
        muted=muted and is_player(viewer, seats),
        messages=[
            shown(message_event(message, message.author.username), viewer, now)
            if live
            else Shown(
                message_event(message, message.author.username),
                False,
                False,
                fresh=message.version >= versions[0],
            )
            for message in messages
        ],
        newest=messages[-1].pk if messages else 0,
    )
