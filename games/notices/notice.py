"""Who is told what: the notices a change makes, and who may get each as an email.

A state change (games/play/actions/) says what happened as `Notice`s. Each is pushed to its
recipients' open pages (games/live/pushes.py), and becomes an email, a row of the outbox
(infra/outbox.py; games/notices/delivery.py writes it) in the same transaction, for each
recipient who may get it:

- their own settings ask for it (`wanted`): the switch for that kind is on (accounts.User
  .email_*), they have an address and are a person; the "your move" and "finish your board"
  emails are held back for players who chose the daily digest instead (a reminder, near a
  deadline, still reaches them);
- one unread "your move" a game (`unread_move`): no new "your move" or "finish your board" email
  for a seat until its player has seen the game (Seat.seen_version, games/seen.py) since the
  last one was written (Seat.notified_version, set with the row). A player in many fast games
  gets one email a game, not one a turn;
- they are not looking at the game right now (`held_while_watching`): they see it live. A
  timeout or the end of the game (`HELD_UNTIL_SEEN`) is not dropped for a watcher but written
  due `WATCHER_DELAY` later: if they leave before their page has shown it, the email goes.

When its row's turn to be sent comes, all of that is checked again, and that what it says is
still so (`still_true`: a "your move" email for a turn already taken is dropped, and so is one
whose game the player has looked at since it was written: `seen_since`).
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings

from accounts.models import User
from games import rules
from games.models import Game, Seat

YOUR_TURN = "your_turn"
FINISH = "finish"  # the pool is empty: finish your board before the deadline
REMINDER = "reminder"
TIMEOUT = "timeout"
# The player's seat was handed to the server's stand-in (timed out too often, or the others
# voted): games/play/leaving.py, with the reason in its data.
HANDED_OVER = "handed_over"
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
    HANDED_OVER: "email_timeout",
    INVITATION: "email_invitation",
    GAME_STARTED: "email_game_started",
    GAME_OVER: "email_game_over",
    DIGEST: "email_daily_digest",
}
# The unsubscribe topic (accounts/unsubscribe.py) that each kind's link turns off, where it is
# not the kind itself.
TOPIC = {FINISH: "your_turn", HANDED_OVER: "timeout"}
# The emails about the turn as it is: dropped once it has changed (`still_true`).
PER_TURN = {YOUR_TURN, FINISH, REMINDER}
# The daily digest replaces these for players who chose it; a reminder still comes, once a turn
# and only near its deadline, which a morning digest may not have known of.
DIGEST_REPLACES = {YOUR_TURN, FINISH}
# At most one of these unread per game and player: none until they have seen the game since.
ONE_UNREAD = {YOUR_TURN, FINISH}
# What the server did to a player who was watching: their page shows it, but they may leave
# before they see it. The email is written due this much later and dropped if they saw it.
HELD_UNTIL_SEEN = {TIMEOUT, HANDED_OVER, GAME_OVER}
WATCHER_DELAY = timedelta(seconds=settings.WATCHER_EMAIL_DELAY)
# The key in an outbox row's data that says its recipient was watching when it was written.
WATCHED = "watched"


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
    if kind in DIGEST_REPLACES and user.email_daily_digest:
        return False
    data = data or {}
    if data.get("tournament"):  # a tournament's table: the round's notice tells of its start
        if kind == GAME_STARTED:
            return False
        if kind == YOUR_TURN and data.get("at_start"):
            return not user.email_tournaments  # the round's notice says who plays first
        return True
    # The first player's game-started email already says it is their move.
    return not (kind == YOUR_TURN and data.get("at_start") and user.email_game_started)


def held_while_watching(kind: str) -> bool:
    """Whether this kind of email is held back while its recipient has the game open (they see
    it there): every kind but the invitation, which the invitee acts on from the email. Those
    of HELD_UNTIL_SEEN are delayed rather than dropped."""
    return kind != INVITATION


def unread_move(seat: Seat | None) -> bool:
    """Whether the seat's player has a "your move" (or "finish your board") email of this game
    that they have not seen the game since: then no other is written (ONE_UNREAD)."""
    return seat is not None and seat.seen_version < seat.notified_version


def seen_since(seat: Seat | None, version: int) -> bool:
    """Whether the seat's player has seen the game as of `version` or later: what an email
    about that version would tell them, they know."""
    return seat is not None and seat.seen_version >= version


def still_true(kind: str, game: Game, user: User, version: int) -> bool:
    """Return whether what the email says is still so (the player may have moved already)."""
    if kind == INVITATION:
        return game.is_waiting and not game.seats.filter(user=user).exists()
    if kind not in PER_TURN:
        return True
    if not game.is_playing:
        return False
    seat = game.seats.filter(user=user).first()
    if seat is None or seat.left:  # the server plays the seat of a player who left
        return False
    if kind in ONE_UNREAD and seen_since(seat, version):
        return False  # written before they looked at the game: they know it is their move
    if game.phase == rules.DRAFTING:
        return (
            kind in (YOUR_TURN, REMINDER)
            and game.current_seat == seat.number
            and game.pool_version == version
        )
    if game.phase == rules.FINISHING:
        return kind in (FINISH, REMINDER) and not seat.finished
    return False
