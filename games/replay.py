"""Rebuild a game's rules state from its event log alone."""

from games import rules

from .models import Event, Game


def events_for_replay(game: Game) -> tuple[dict, list[Event]]:
    """Return the start event's data and the rules events after it, in order."""
    events = list(game.events.order_by("number"))
    start = next(event for event in events if event.kind == "started")
    return start.data, [event for event in events if event.action is not None]


def rebuild_state(game: Game, upto: int | None = None) -> rules.GameState:
    """Return the state after the event numbered `upto` (the newest by default)."""
    start, events = events_for_replay(game)
    state = rules.new_game(start["players"], start["seed"], start["first_seat"])
    for event in events:
        if upto is not None and event.number > upto:
            break
        state = state.apply(event.action, event.seat)
    return state
