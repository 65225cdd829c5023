"""What one accepted version of a game touched, as far as anyone's page is concerned.

Worked out inside the transaction that made the change (games/actions.py), where it is known
exactly, and handed to what draws it: the mover's answer (games/views.py) and the pushes to
every other open page (games/live.py).
"""

from dataclasses import dataclass

# Event kinds that change neither whose turn it is nor anyone's list of waiting games.
ARRANGING = frozenset({"place", "rotate", "move", "swap", "return", "clear"})
KEEPS_TURN = ARRANGING | {"draft", "undo_draft"}


@dataclass(frozen=True)
class Change:
    game_id: int
    version: int
    seats: tuple[int, ...]  # boards or trays to redraw (seat numbers)
    pool: bool  # the pool or the turn changed: the pool, and everyone's status
    ended: bool  # the game is over: every page redraws the whole game with the results
    kind: str  # the event's kind, e.g. "place"
    players: tuple[int, ...] = ()  # the user ids of the seats, in seat order

    @property
    def turn_may_have_passed(self) -> bool:
        """Whether players' lists of games waiting for them may have changed."""
        return self.ended or self.kind not in KEEPS_TURN

    def event(self) -> dict:
        """The ``game.changed`` event of the channel layer (games/consumers.py)."""
        return {
            "type": "game.changed",
            "game": self.game_id,
            "version": self.version,
            "seats": list(self.seats),
            "pool": self.pool,
            "ended": self.ended,
        }
