"""Who gets which email, and the emails themselves.

A state change in games/actions.py says what happened as `Notice`s; games/side_effects.py queues
them after the commit, one `games.send_notice` task per recipient, except for the recipients
whose own settings refuse that email (`wanted` is false: a bot, no address, the switch off, the
digest instead) and those watching the game at that moment (`watching_recipients`, most
players when their turn begins), whose task would send nothing. The task decides, when it
runs, whether the email is still wanted and still true:

- the recipient's switch for that kind is on (accounts.User.email_*), and per-turn emails (your
  move, finish your board, reminders) are held back for players who chose the daily digest;
- the recipient is not looking at the game right now (games.presence): they see it live;
- the turn is still theirs (a "your move" email for a turn they already took is never sent).

Each email is plain text and HTML from templates/emails/, shows times in the recipient's own time
zone, and carries a signed unsubscribe link and the List-Unsubscribe headers (RFC 8058 one-click).
"""

import logging
from dataclasses import dataclass, field

from accounts.models import User
from games import presence, rules
from games.models import Game

logger = logging.getLogger(__name__)


YOUR_TURN = "your_turn"


FINISH = "finish"  # the pool is empty: finish your board before the deadline


REMINDER = "reminder"


TIMEOUT = "timeout"


INVITATION = "invitation"


GAME_STARTED = "game_started"


GAME_OVER = "game_over"


DIGEST = "digest"


# The switch on the User that allows each kind, and the unsubscribe topic its link turns off.
PREFERENCE = {
    YOUR_TURN: "email_your_turn",
    FINISH: "email_your_turn",
    REMINDER: "email_reminder",
    TIMEOUT: "email_timeout",
    INVITATION: "email_invitation",
    GAME_STARTED: "email_game_started",
    GAME_OVER: "email_game_over",
    DIGEST: "email_daily_digest",
}


TOPIC = {FINISH: "your_turn"}


# The daily digest replaces these for players who chose it.
PER_TURN = {YOUR_TURN, FINISH, REMINDER}


@dataclass(frozen=True)
class Notice:
    """Something that happened that some players may want an email about.

    `version` says which state it is about: for a turn, the game's pool version when the turn
    began (the email is dropped once the pool or the turn has changed since).
    """

    kind: str
    game_id: int
    user_ids: tuple[int, ...]
    version: int = 0
    data: dict = field(default_factory=dict)


def wanted(user: User, kind: str, data: dict | None = None) -> bool:
    """Return whether the user's settings ask for this kind of email."""
    if not user.is_active or not user.email:
        return False
    if not getattr(user, PREFERENCE[kind]):
        return False
    if kind in PER_TURN and user.email_daily_digest:
        return False
    # The first player's game-started email already says it is their move.
    return not (kind == YOUR_TURN and (data or {}).get("at_start") and user.email_game_started)


def _held_while_watching(kind: str) -> bool:
    """Whether this kind of email is held back while its recipient has the game open (they see
    it there): every kind but the invitation, which the invitee acts on from the email."""
    return kind != INVITATION


def watching_recipients(recipients) -> set[tuple[int, int]]:
    """Of (notice, user id) pairs, return (game id, user id) of the recipients who have the
    notice's game open now (one cache round trip per game, none without a recipient): their
    email would be held back, so no task is queued for it."""
    wanted_by_game: dict[int, set[int]] = {}
    for notice, user_id in recipients:
        if _held_while_watching(notice.kind):
            wanted_by_game.setdefault(notice.game_id, set()).add(user_id)
    return {
        (game_id, user_id)
        for game_id, user_ids in wanted_by_game.items()
        for user_id in presence.watching(game_id, user_ids)
    }


def still_true(kind: str, game: Game, user: User, version: int) -> bool:
    """Return whether what the email says is still so (the player may have moved already)."""
    if kind == INVITATION:
        return game.is_waiting and not game.seats.filter(user=user).exists()
    if kind not in PER_TURN:
        return True
    if not game.is_playing:
        return False
    seat = game.seats.filter(user=user).first()
    if seat is None:
        return False
    if game.phase == rules.DRAFTING:
        return (
            kind in (YOUR_TURN, REMINDER)
            and game.current_seat == seat.number
            and game.pool_version == version
        )
    if game.phase == rules.FINISHING:
        return kind in (FINISH, REMINDER) and not seat.finished
    return False
