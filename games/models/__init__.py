"""The game as rows: a Game with its pool, a Seat per player with board and tray, and the
append-only Event log from which every state can be rebuilt (games/state_store.py,
games/history/replay.py); the players' ratings; the browsers subscribed to Web Push. (The
outbox of emails is below the games: infra/models.py.) One module per concern; every model is
imported from here (`from games.models import Game`), as Django and the migrations name them.

The site changes them only through the state changes in games/play/; the tools that make test
data (benchmarks/generate.py) write finished games directly.
"""

from .chat import ChatMessage
from .events import Event
from .game import (
    ABANDON_AFTER_ROW,
    ABANDON_AFTER_TOTAL,
    ABANDON_ROW_RANGE,
    ABANDON_TOTAL_RANGE,
    MAX_FINISHING_TIME,
    MAX_FISCHER_BANK,
    MAX_FISCHER_INCREMENT,
    MAX_TIME_PER_MOVE,
    MIN_FINISHING_TIME,
    MIN_FISCHER_BANK,
    MIN_FISCHER_INCREMENT,
    MIN_TIME_PER_MOVE,
    PROVISIONAL_GAMES,
    Game,
    Seat,
    new_invite_token,
    waiting_for_move,
    waiting_for_stand_in,
)
from .invitations import Invitation
from .push import PushSubscription
from .quickplay import QuickPlaySeek
from .ratings import Rating, RatingChange
from .reports import Report
from .votes import ExpelVote, electorate, votes_needed

__all__ = [
    "ABANDON_AFTER_ROW",
    "ABANDON_AFTER_TOTAL",
    "ABANDON_ROW_RANGE",
    "ABANDON_TOTAL_RANGE",
    "MAX_FINISHING_TIME",
    "MAX_FISCHER_BANK",
    "MAX_FISCHER_INCREMENT",
    "MAX_TIME_PER_MOVE",
    "MIN_FINISHING_TIME",
    "MIN_FISCHER_BANK",
    "MIN_FISCHER_INCREMENT",
    "MIN_TIME_PER_MOVE",
    "PROVISIONAL_GAMES",
    "ChatMessage",
    "Event",
    "ExpelVote",
    "Game",
    "Invitation",
    "PushSubscription",
    "QuickPlaySeek",
    "Rating",
    "RatingChange",
    "Report",
    "Seat",
    "electorate",
    "new_invite_token",
    "votes_needed",
    "waiting_for_move",
    "waiting_for_stand_in",
]
