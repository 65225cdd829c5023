"""A guest's games against the computer, and the guests' end.

"Play now" (views.py) signs a visitor in as a guest (accounts/guests.py) and starts a game
against one computer player at once, through the same `create_game` as the New game form. A
guest's table is unrated, by invitation and private: nobody else finds it, joins it or watches
it, and it never counts for a rating. A player who is signed in may press "Play now" too: the
same game, unrated, public as their other tables are.

A guest who logs out has left: their account and their games are removed then
(`remove_on_logout`), and the sweep (games/tasks.py `sweep_guests`, hourly) removes those who
never did, GUEST_DAYS after they came. Nothing else of theirs is kept: a guest has no email,
no rating, no table talk, no invitation, no token.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.bots import free_bot
from accounts.models import User
from games import rules
from games.models import Game
from games.play import actions
from games.rules.bots import LEVELS

logger = logging.getLogger(__name__)

# A game against the computer: one computer player, a day per move (the computer answers at
# once; the guest may come back tomorrow), a day to finish.
PER_MOVE = timedelta(days=1)
# How many guests one sweep removes at most (the next hour's takes the rest).
SWEEP_BATCH = 500


def level_asked(value) -> str | None:
    """The computer player's level from a form's value: easy unless another level ("strong",
    "expert") is asked for; None for a level there is not."""
    if not value:
        return "easy"
    return value if value in LEVELS else None


def start_game_against_computer(
    user: User, level: str = "easy", *, seed: int | None = None, layout: str = rules.STANDARD
) -> Game:
    """A two-player game of `user` against one computer player of `level`, started at once.
    `seed` fixes the deal and the seat order, and `layout` the pool's (the guided game's short
    deal, tutorial.py); else they are drawn as for every game, with the rules' own pool."""
    if layout not in rules.LAYOUT_NAMES:
        raise ValueError(f"no such layout: {layout!r}")
    fixed = seed is not None or layout != rules.STANDARD
    guest = user.is_guest
    with transaction.atomic():
        game = actions.create_game(
            creator=user,
            player_count=2,
            time_per_move=PER_MOVE,
            finishing_time=PER_MOVE,
            rated=False,
            access=Game.Access.INVITATION if guest else Game.Access.OPEN,
            private=guest,
            spectators_read_chat=not guest,
            name=_("Against the computer"),
            bots=() if fixed else (level,),
        )
        if fixed:
            # The table waits for its second player: the deal is drawn at the start (when the
            # computer sits down), from the seed and layout the table holds by then.
            Game.objects.filter(pk=game.pk).update(seed=seed, layout=layout)  # seed None: drawn
            bot = free_bot(level, not_at_game=game.pk)
            game = actions.join_game(game_id=game.pk, user=bot, invite_token=game.invite_token)
    return game


def remove_guest(user_id: int) -> bool:
    """Remove a guest and every game they sat at (their seats, events and the computer's seats
    with them). False if the account is no guest (any more): a player's games are never
    removed."""
    with transaction.atomic():
        guest = User.objects.select_for_update().filter(pk=user_id, is_guest=True).first()
        if guest is None:
            return False
        games = Game.objects.filter(Q(seats__user_id=user_id) | Q(created_by_id=user_id))
        games.distinct().delete()
        guest.delete()
    return True


def remove_on_logout(sender, request, user, **kwargs):
    """A guest logs out (leaves): their account and games go (user_logged_out's receiver)."""
    if user is not None and getattr(user, "is_guest", False):
        remove_guest(user.pk)


def sweep_guests(now=None) -> int:
    """Remove the guests who came more than GUEST_DAYS ago; the number removed."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.GUEST_DAYS)
    old = User.objects.filter(is_guest=True, date_joined__lt=cutoff).order_by("date_joined")
    removed = sum(remove_guest(pk) for pk in old.values_list("pk", flat=True)[:SWEEP_BATCH])
    if removed:
        logger.info("removed %d guests older than %d days", removed, settings.GUEST_DAYS)
    return removed
