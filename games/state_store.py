"""Move a rules GameState in and out of rows: the pool on the Game, each board and tray on its
Seat. The rules package checks the state on the way in (GameState.from_json validates it)."""

import contextlib

from django.db import connection, transaction

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


@contextlib.contextmanager
def snapshot():
    """Read several rows as of one moment.

    A game's state spans its row and its seats' rows, and a move rewrites them together in
    one transaction; reading them with separate statements outside a transaction can mix two
    versions of the game. PostgreSQL's REPEATABLE READ (and SQLite's transactions) give every
    statement of the block the same snapshot.
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def read_game(game_id: int) -> tuple[Game, list[Seat]]:
    """Return a game and its seats (in seat order, with their users) as of one moment."""
    # One statement sees one moment by itself: the seats joined with their game and users.
    seats = list(
        Seat.objects.filter(game_id=game_id)
        .select_related("game__created_by", "user")
        .order_by("number")
    )
    if seats:
        game = seats[0].game
        for seat in seats:
            seat.game = game
        return game, seats
    with snapshot():  # a table nobody sits at any more
        game = Game.objects.select_related("created_by").get(pk=game_id)
        return game, list(game.seats.select_related("user").order_by("number"))
