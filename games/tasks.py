"""Celery tasks: thin, by id, named, time-limited; each calls a function of games/actions.py."""

from microchip_site.celery import app

from . import actions


@app.task(name="games.take_last_tile", time_limit=30, soft_time_limit=20)
def take_last_tile(game_id: int) -> None:
    """Take the last tile of a draw column for the player whose turn begins (idempotent)."""
    actions.take_last_tile(game_id=game_id)
