"""Following: a player keeps an eye on others. The dashboard lists the players one follows, with
their games in progress to watch and their latest results (games/selectors.py `following`);
"only players I follow" may invite a player by name if they say so (accounts/privacy.py).

Nobody is told they are followed, and nobody sees whom another follows. Two players in a block
(accounts/blocking.py) do not follow each other, either way.
"""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import blocking
from .models import Follow, User
from .refusals import Refused

# The most players the dashboard lists; following more is refused (each costs the dashboard).
MAX_FOLLOWED = 100


def follows(user, other) -> bool:
    if not user.is_authenticated:
        return False
    return Follow.objects.filter(follower=user, followed=other).exists()


def followed_players(user) -> list[User]:
    """The active players `user` follows, in the order of their names (one query)."""
    return list(
        User.objects.filter(followers__follower=user, is_active=True)
        .only("id", "username", "bot_level", "bot_owner")  # what a name and its badge need
        .order_by("username")
    )


def follow(*, follower: User, followed: User) -> bool:
    """Follow `followed`; return whether it is new (following twice changes nothing)."""
    if follower.pk == followed.pk:
        raise Refused(_("You cannot follow yourself."), code="oneself")
    if blocking.has_blocked(follower, followed):
        raise Refused(
            _("You blocked %(name)s: unblock them first.") % {"name": followed.username},
            code="blocked",
        )
    if blocking.blocked_either_way(follower.pk, followed.pk):
        # Kept apart by the other's block (issue 34): the words name no block.
        raise Refused(
            _("You cannot follow %(name)s.") % {"name": followed.username}, code="not_offered"
        )
    with transaction.atomic():
        if Follow.objects.filter(follower=follower).count() >= MAX_FOLLOWED:
            raise Refused(
                ngettext(
                    "You follow %(count)d player already, the most one may: unfollow them first.",
                    "You follow %(count)d players already, the most one may: unfollow some first.",
                    MAX_FOLLOWED,
                )
                % {"count": MAX_FOLLOWED},
                code="too_many",
            )
        try:
            with transaction.atomic():
                Follow.objects.create(follower=follower, followed=followed)
        except IntegrityError:
            return False
    return True


def unfollow(*, follower: User, followed: User) -> bool:
    """Stop following `followed`; return whether `follower` did."""
    with transaction.atomic():
        deleted, _ = Follow.objects.filter(follower=follower, followed=followed).delete()
    return bool(deleted)
