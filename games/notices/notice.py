"""Who is told what: the notices a change makes, and who may get each as an email.

A state change (games/play/actions.py) says what happened as `Notice`s. Each is pushed to its
recipients' open pages (games/live/pushes.py), and becomes an email, a row of the outbox
(games/notices/outbox.py) written in the same transaction, for each recipient who may get it:

- their own settings ask for it (`wanted`): the switch for that kind is on (accounts.User
  .email_*), they have an address and are a person; per-turn emails (your move, finish your
  board, reminders) are held back for players who chose the daily digest instead;
- they are not looking at the game right now (`held_while_watching`): they see it live.

When its row's turn to be sent comes, all of that is checked again, and that what it says is
still so (`still_true`: a "your move" email for a turn already taken is dropped).
"""

from dataclasses import dataclass, field

from accounts.models import User
from games import rules
from games.models import Game

YOUR_TURN = "your_turn"
FINISH = "finish"  # the pool is empty: finish your board before the deadline
REMINDER = "reminder"
TIMEOUT = "timeout"
INVITATION = "invitation"
GAME_STARTED = "game_started"
GAME_OVER = "game_over"
DIGEST = "digest"

# The switch on the User that allows each kind.
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
# The unsubscribe topic (accounts/unsubscribe.py) that each kind's link turns off, where it is
# not the kind itself.
TOPIC = {FINISH: "your_turn"}
# The daily digest replaces these for players who chose it.
PER_TURN = {YOUR_TURN, FINISH, REMINDER}


@dataclass(frozen=True)
class Notice:
    """Something that happened that some players should hear of.

    `version` says which state it is about: for a turn, the game's pool version when the turn
    began (its email is dropped once the pool or the turn has changed since).
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


def held_while_watching(kind: str) -> bool:
    """Whether this kind of email is held back while its recipient has the game open (they see
    it there): every kind but the invitation, which the invitee acts on from the email."""
    return kind != INVITATION


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
