"""Quick play: a player asks for a game by player count, time per move and rated or not, and
is paired with players who asked for the same, of a similar rating; their game starts at once.

Pairing takes the oldest seek first and looks among the others of its kind for those whose
rating is within the window of both: RATING_WINDOW at first, WIDENING more a minute waited,
anyone at all after ANYONE_AFTER. Players who block one another are never paired (accounts/
blocking.py). It runs when a seek comes in and then every half minute (`games.pair_quick_play`,
beat), in one transaction that locks the seeks it looks at (others' runs skip them), deletes the
paired ones and opens their game: a table by invitation that the players join at once, which
starts it (the usual "the game started" notices, emails and pushes; the first seat's "your
move")."""

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import blocking
from accounts.models import User
from games.history import archive
from games.models import Game, QuickPlaySeek
from games.play.actions import create_game, join_game
from games.play.errors import ActionRefused

logger = logging.getLogger(__name__)

RATING_WINDOW = 100
WIDENING = 50  # rating points a minute waited
ANYONE_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class Kind:
    player_count: int
    time_per_move: timedelta
    rated: bool


def kind_of(seek: QuickPlaySeek) -> Kind:
    return Kind(seek.player_count, seek.time_per_move, seek.rated)


def seek(
    *,
    user: User,
    player_count: int,
    time_per_move: timedelta,
    rated: bool,
    held_for: timedelta | None = None,
) -> Game | None:
    """Ask for a game (replacing the player's earlier seek), and pair at once if others wait:
    return the player's game if it was made at once. With `held_for`, the seek lasts only while
    it is renewed (`keep_held`) within that time: the API's seeks made with a stream open."""
    if user.bot_level:
        raise ActionRefused(_("Computer players do not use quick play."), code="bot")
    if not 2 <= player_count <= 5:
        raise ActionRefused(_("A game has 2 to 5 players."), code="bad_player_count")
    if not timedelta(hours=1) <= time_per_move <= timedelta(days=14):
        raise ActionRefused(_("The time per move must be from 1 hour to 14 days."), code="bad_time")
    with transaction.atomic():
        QuickPlaySeek.objects.filter(user=user).delete()
        QuickPlaySeek.objects.create(
            user=user,
            player_count=player_count,
            time_per_move=time_per_move,
            rated=bool(rated),
            rating=archive.rating_of(user).display,
            held_until=None if held_for is None else timezone.now() + held_for,
        )
    made = pair_waiting()
    return next((game for game in made if user.pk in game.seat_user_ids), None)


def cancel_seek(*, user: User, held_only: bool = False) -> bool:
    """Stop asking (with `held_only`, only a seek held by a stream: the player's last stream
    closed); return whether the player was (a game already made is theirs to play)."""
    seeks = QuickPlaySeek.objects.filter(user=user)
    if held_only:
        seeks = seeks.filter(held_until__isnull=False)
    deleted, _count = seeks.delete()
    return bool(deleted)


def keep_held(*, user_id: int, held_for: timedelta) -> None:
    """The player still holds a stream: their seek held by one lasts `held_for` more."""
    QuickPlaySeek.objects.filter(user_id=user_id, held_until__isnull=False).update(
        held_until=timezone.now() + held_for
    )


def window(seek: QuickPlaySeek, now: datetime) -> float:
    """How far from its rating a seek takes players, after waiting since it was made."""
    waited = now - seek.created_at
    if waited >= ANYONE_AFTER:
        return float("inf")
    return RATING_WINDOW + WIDENING * waited.total_seconds() / 60


def groups(
    seeks: list[QuickPlaySeek], now: datetime, blocked: set[frozenset[int]]
) -> Iterator[list[QuickPlaySeek]]:
    """The tables to open from `seeks` (oldest first): lists of seeks of one kind, each
    within the others' windows, nobody blocking anybody. A pure choice, for the tests."""
    taken: set[int] = set()
    for first in seeks:
        if first.pk in taken:
            continue
        kind = kind_of(first)
        group = [first]
        others = [
            other
            for other in seeks
            if other.pk not in taken and other.pk != first.pk and kind_of(other) == kind
        ]
        others.sort(key=lambda other: (abs(other.rating - first.rating), other.created_at))
        for other in others:
            if len(group) == kind.player_count:
                break
            fits = all(
                abs(other.rating - member.rating) <= min(window(other, now), window(member, now))
                and frozenset((other.user_id, member.user_id)) not in blocked
                for member in group
            )
            if fits:
                group.append(other)
        if len(group) == kind.player_count:
            taken.update(member.pk for member in group)
            yield group


def pair_waiting(now: datetime | None = None) -> list[Game]:
    """Pair the seeks that can be paired now and open their games; return them."""
    now = now or timezone.now()
    made = []
    # A seek whose stream stopped renewing it (its process died) waits for nobody: it goes.
    QuickPlaySeek.objects.filter(held_until__lt=now).delete()
    with transaction.atomic():
        seeks = list(
            QuickPlaySeek.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(user__is_active=True)  # a closed account's seek waits for nobody
            .exclude(held_until__lt=now)
            .select_related("user")
            .order_by("created_at", "pk")
        )
        if len(seeks) < 2:
            return []
        blocked = blocking.pairs_among([seek.user_id for seek in seeks])
        for group in list(groups(seeks, now, blocked)):
            try:
                with transaction.atomic():  # one table refused leaves the others be
                    QuickPlaySeek.objects.filter(pk__in=[member.pk for member in group]).delete()
                    made.append(_open(group))
            except ActionRefused as refusal:
                logger.warning("quick play: a table for %s refused: %s", group, refusal.message)
    if made:
        logger.info("quick play: %d game(s) made", len(made))
    return made


def _open(group: list[QuickPlaySeek]) -> Game:
    first = group[0]
    game = create_game(
        creator=first.user,
        player_count=first.player_count,
        time_per_move=first.time_per_move,
        rated=first.rated,
        access=Game.Access.INVITATION,
        private=False,
        name="Quick play",
    )
    for member in group[1:]:
        join_game(game_id=game.pk, user=member.user, invite_token=game.invite_token)
    game.refresh_from_db()
    return game
