"""Blocking: a player keeps another away, both ways and silently.

Once either of two players has blocked the other (a `Block` row, whichever way):

- neither may invite the other by name (accounts/privacy.py `accepts_invitation_from`, asked by
  games/play/actions/tables.py `_invite`), refused in the same words as the "only players I follow"
  setting, so the refusal does not tell a block;
- neither sees the other's tables waiting for players in the lobby (games/lobby.py
  `open_games`), nor may take a seat where the other sits (games/play/actions/tables.py `join_game`,
  with words that name no block);
- neither reads the other's table talk, on the page (games/chat.py) or pushed
  (games/live/consumers.py `game_chat`);
- quick play never pairs them (`blocked_ids`).

Nothing ever tells the blocked player: no notice, no email, no word on a page of theirs. A block
also ends the follows between the two, and neither may follow the other while it lasts
(accounts/following.py), refused to the blocked player in words that name no block.
"""

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from .models import Block, Follow, User
from .refusals import Refused


def blocked_either_way(user_a_id: int | None, user_b_id: int | None) -> bool:
    """Whether either of the two players has blocked the other (one indexed query; none for a
    signed-out visitor or a player and themselves)."""
    if user_a_id is None or user_b_id is None or user_a_id == user_b_id:
        return False
    return Block.objects.filter(
        Q(blocker_id=user_a_id, blocked_id=user_b_id)
        | Q(blocker_id=user_b_id, blocked_id=user_a_id)
    ).exists()


def blocked_ids(user_id: int | None) -> set[int]:
    """The ids of everyone in a block with the player, whoever blocked whom (one query)."""
    if user_id is None:
        return set()
    pairs = Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).values_list(
        "blocker_id", "blocked_id"
    )
    return {other for pair in pairs for other in pair if other != user_id}


def blocked_by_me(user) -> list[User]:
    """The players `user` has blocked (not those who blocked them: nobody is told that), in the
    order of their names, for the settings page."""
    return list(
        User.objects.filter(blocked_by__blocker=user).only("id", "username").order_by("username")
    )


def has_blocked(user, other) -> bool:
    """Whether `user` blocked `other` (their own block, which their pages may show)."""
    if not user.is_authenticated:
        return False
    return Block.objects.filter(blocker=user, blocked=other).exists()


def block(*, blocker: User, blocked: User) -> bool:
    """Block `blocked`; end the follows between the two. Return whether it is a new block (a
    second one changes nothing)."""
    if blocker.pk == blocked.pk:
        raise Refused(_("You cannot block yourself."), code="oneself")
    if blocked.is_bot:
        raise Refused(
            _(
                "A computer player plays only at the tables its creator seats it at: there is "
                "nothing to block."
            ),
            code="bot",
        )
    with transaction.atomic():
        Follow.objects.filter(
            Q(follower=blocker, followed=blocked) | Q(follower=blocked, followed=blocker)
        ).delete()
        try:
            with transaction.atomic():
                Block.objects.create(blocker=blocker, blocked=blocked)
        except IntegrityError:
            return False
    return True


def unblock(*, blocker: User, blocked: User) -> bool:
    """Lift `blocker`'s block of `blocked`; return whether there was one. A block the other
    player made stays: each lifts only their own."""
    with transaction.atomic():
        deleted, _ = Block.objects.filter(blocker=blocker, blocked=blocked).delete()
    return bool(deleted)


def pairs_among(user_ids) -> set[frozenset[int]]:
    """Every pair of these players in a block, whoever blocked whom (one query): quick play
    pairs none of them (games/play/quickplay.py)."""
    user_ids = list(user_ids)
    rows = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids).values_list(
        "blocker_id", "blocked_id"
    )
    return {frozenset(row) for row in rows}
