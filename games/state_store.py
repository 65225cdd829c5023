"""Move a rules GameState in and out of rows: the pool on the Game, each board and tray on its
Seat. The rules package checks the state on the way in (GameState.from_json validates it)."""

from games.rules import GameState
from games.rules.state import FORMAT

from .models import Game, Seat

GAME_STATE_FIELDS = ["pool", "phase", "current_seat", "pending_draft", "drafts"]
SEAT_STATE_FIELDS = ["tray", "board", "colours", "finished"]


def load_state(game: Game, seats: list[Seat]) -> GameState:
    """Return the rules state of a started game; `seats` are all its seats in seat order."""
    return GameState.from_json(
        {
            "format": FORMAT,
            "players": game.player_count,
            "seed": game.seed,
            "columns": game.pool["columns"],
            "removed": game.pool["removed"],
            "trays": [seat.tray for seat in seats],
            "colours": [seat.colours for seat in seats],
            "boards": [seat.board for seat in seats],
            "phase": game.phase,
            "current": game.current_seat,
            "finished": [seat.finished for seat in seats],
            "pending": game.pending_draft,
            "drafts": game.drafts,
        }
    )


def store_state(game: Game, seats: list[Seat], state: GameState) -> list[Seat]:
    """Copy `state` onto the game and seat objects (unsaved); return the seats that changed."""
    data = state.to_json()
    game.pool = {"columns": data["columns"], "removed": data["removed"]}
    game.phase = data["phase"]
    game.current_seat = data["current"]
    game.pending_draft = data["pending"]
    game.drafts = data["drafts"]
    changed = []
    for seat in seats:
        values = {
            "tray": data["trays"][seat.number],
            "board": data["boards"][seat.number],
            "colours": data["colours"][seat.number],
            "finished": data["finished"][seat.number],
        }
        if any(getattr(seat, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(seat, name, value)
            changed.append(seat)
    return changed
