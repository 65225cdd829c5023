"""Reports: a player tells the admin about another player, or about one of their messages in
a table talk, with a reason. A report changes nothing by itself; the admin looks into it with
the game, its talk and its moves (games/admin.py), and may take a message out of its talk, mute
the player or close their account."""

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games import chat, selectors
from games.models import ChatMessage, Game, Report
from games.play.errors import ActionRefused

MAX_DETAILS = 1000


def report(
    *,
    reporter: User,
    reported_name: str = "",
    message_id: int | None = None,
    game_id: int | None = None,
    reason: str,
    details: str = "",
) -> Report:
    """Record `reporter`'s report of a player (by name) or of a message (by id: its author is
    the one reported, its game the one named), which they must be able to see."""
    if reason not in Report.Reason.values:
        raise ActionRefused(_("Choose a reason."), code="bad_request")
    details = (details or "").strip()
    if len(details) > MAX_DETAILS:
        raise ActionRefused(
            ngettext(
                "Say it in at most %(count)d character.",
                "Say it in at most %(count)d characters.",
                MAX_DETAILS,
            )
            % {"count": MAX_DETAILS},
            code="bad_request",
        )
    message = game = None
    if message_id is not None:
        message = readable_message(reporter, message_id)
        if message is None:
            raise ActionRefused(_("There is no such message."), code="no_such_message")
        reported, game = message.author, message.game
    else:
        reported = User.objects.named(reported_name or "").filter(is_active=True).first()
        if reported is None:
            raise ActionRefused(_("There is no such player."), code="no_such_player")
        if game_id is not None:
            game = Game.objects.filter(pk=game_id).first()
            if game is None or not selectors.can_view(game, reporter):
                game = None
    if reported.pk == reporter.pk:
        raise ActionRefused(_("You cannot report yourself."), code="yourself")
    with transaction.atomic():
        return Report.objects.create(
            reporter=reporter,
            reported=reported,
            game=game,
            message=message,
            reason=reason,
            details=details,
        )


def readable_message(user: User, message_id: int) -> ChatMessage | None:
    """The message numbered `message_id` (with its game and author), if `user` may read it
    where it was written: not deleted, in a game they may see, whose talk they may read. Any
    other is as good as missing: its author and its game are told to nobody else."""
    message = ChatMessage.objects.select_related("game", "author").filter(pk=message_id).first()
    if message is None or message.deleted_at is not None:
        return None
    game = message.game
    if not selectors.can_view(game, user) or not chat.may_read(game, user, list(game.seats.all())):
        return None
    return message
