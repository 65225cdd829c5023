"""What happens after a change has committed: queued work, pushes and emails.

Called from games/actions.py inside `transaction.on_commit`, so nothing here runs for a change
that rolled back, and a failure here never undoes a move.
"""


def after_play(game_id: int, version: int, *, forced_take_due: bool) -> None:
    if forced_take_due:
        from .tasks import take_last_tile

        take_last_tile.delay(game_id)
