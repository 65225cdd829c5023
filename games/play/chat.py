"""The table talk's changes: writing a message, deleting one's own, reading (games/chat.py says
who may do what). Each is one transaction with the game locked, as a move is, so a message is
stamped with the version it was written at; the message leaves for the open pages after the
commit (`Effects.chats`), drawn by each page's socket for its viewer."""

from dataclasses import dataclass

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games import chat
from games.live.changes import chat_event, game_group
from games.models import ChatMessage, Seat
from games.play.applying import Table, changing
from games.play.errors import ActionRefused


@dataclass(frozen=True)
class Said:
    message: ChatMessage
    author_name: str


def send_message(*, game_id: int, user: User, text: str) -> Said:
    """Write `text` in the game's talk as `user`, one of its players; it counts as read by them."""
    with changing(game_id) as table:
        game, seat = table.game, table.seat_of(user)
        if seat is None:
            raise ActionRefused(
                _("Only the game's players write in its table talk."), code="not_a_player"
            )
        if not chat.may_write(game, user, table.seats):
            raise ActionRefused(_("The table talk opens when the game starts."), code="not_started")
        if getattr(user, "chat_muted", False):
            raise ActionRefused(_("You may not write in table talks."), code="muted")
        try:
            text = chat.clean_text(text)
        except chat.BadText as error:
            raise ActionRefused(str(error), code="bad_request") from None
        message = ChatMessage.objects.create(
            game=game, author=user, text=text, version=game.version
        )
        Seat.objects.filter(pk=seat.pk).update(chat_read=message.pk)
        seat.chat_read = message.pk
        _push(table, chat.message_event(message, user.username))
    return Said(message, user.username)


def delete_message(*, game_id: int, message_id: int, user: User) -> Said:
    """Delete `user`'s own message, within CHAT_DELETE_MINUTES of writing it: no page shows it
    from then on (the admin still does)."""
    with changing(game_id) as table:
        message = (
            ChatMessage.objects.select_for_update()
            .filter(pk=message_id, game_id=table.game.pk)
            .first()
        )
        if message is None or message.author_id != user.pk:
            raise ActionRefused(_("You can delete only your own messages."), code="not_yours")
        if message.deleted_at is None:
            now = timezone.now()
            if now > chat.deletable_until(message):
                minutes = chat.delete_window().total_seconds() // 60
                raise ActionRefused(
                    ngettext(
                        "A message can be deleted only in the %(minutes)d minute after it was "
                        "written.",
                        "A message can be deleted only in the %(minutes)d minutes after it was "
                        "written.",
                        int(minutes),
                    )
                    % {"minutes": minutes},
                    code="too_late",
                )
            message.deleted_at = now
            message.save(update_fields=["deleted_at"])
            _push(table, chat.message_event(message, user.username))
    return Said(message, user.username)


def remove_message(*, game_id: int, message_id: int) -> bool:
    """Take a message out of the talk for everyone, as a moderator (the admin): at any time,
    whoever wrote it. Kept for the admin like a deleted one; return whether it was shown."""
    with changing(game_id) as table:
        message = (
            ChatMessage.objects.select_for_update()
            .select_related("author")
            .filter(pk=message_id, game_id=table.game.pk)
            .first()
        )
        if message is None or message.deleted_at is not None:
            return False
        message.deleted_at = timezone.now()
        message.save(update_fields=["deleted_at"])
        _push(table, chat.message_event(message, message.author.username))
    return True


def read_chat(*, game_id: int, user: User, up_to: int) -> bool:
    """`user` has read the game's talk up to message `up_to` (their page showed it)."""
    return chat.mark_read(game_id, user, up_to)


def _push(table: Table, message: dict) -> None:
    """The table talk's message, written or deleted, to every open page of the game."""
    event = chat_event(table.game.pk, message, spectators=table.game.spectators_read_chat)
    table.effects.push(game_group(table.game.pk), event)
