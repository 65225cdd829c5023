"""Helpers for the timed-work tests."""

from django.utils import timezone

from games.models import Game, Seat
from games.rules import GameState
from games.state_store import GAME_STATE_FIELDS, SEAT_STATE_FIELDS, load_state, store_state


def seat_user(game, number):
    return game.seats.get(number=number).user


def rig_two_one_tile_columns(game: Game) -> None:
    """Leave one tile in each of the last two pool columns (their other tiles go to the trays),
    so that the turn begins with a forced take and the next one does too.

    Ordinary play never gets there (a full column follows every forced take); the state is
    valid all the same, and the platform must chain the two forced takes.
    """
    seats = list(game.seats.order_by("number"))
    state = load_state(game, seats)
    data = state.to_json()
    draw = state.draw_column()
    columns = [list(column) for column in data["columns"]]
    spare = columns[draw][1:] + columns[draw - 1][1:]
    columns[draw], columns[draw - 1] = columns[draw][:1], columns[draw - 1][:1]
    for index, tile in enumerate(spare):
        data["trays"][index % state.players].append(tile)
    data["columns"] = columns
    data["drafts"] = state.drafts + len(spare)
    store_state(game, seats, GameState.from_json(data))
    game.deadline, game.remind_at = timezone.now(), None  # as a forced-take turn begins
    game.save(update_fields=[*GAME_STATE_FIELDS, "deadline", "remind_at"])
    Seat.objects.bulk_update(seats, SEAT_STATE_FIELDS)
