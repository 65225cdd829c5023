"""The replay of a finished game, step by step, on the rules engine's fold of its log."""

import copy
from dataclasses import dataclass

from games import rules
from games.models import Event, Game, Seat
from games.selectors import GameView, seat_view, space_views, state_view, tile_view


@dataclass(frozen=True)
class TurnStep:
    """A turn of the replay's list: where it begins, and who drafts in it."""

    number: int | None  # None: the finishing phase after the last draft
    step: int
    player: str = ""

    @property
    def label(self):
        return "finishing" if self.number is None else f"turn {self.number}"


def rules_events(game: Game) -> tuple[dict, list[Event]]:
    """Return the data of the game's start event and its rules events after it, in order."""
    events = list(game.events.order_by("number"))
    start = next(event for event in events if event.kind == "started")
    return start.data, [event for event in events if event.action is not None]


def fold(start: dict, events: list[Event]) -> rules.Replay:
    """The rules engine's one fold of a stored log (games/rules/replay.py)."""
    log = [(event.seat, event.action) for event in events]
    return rules.Replay(
        start["players"],
        start["seed"],
        log,
        start["first_seat"],
        strict_finish=start.get("strict_finish", False),
    )


def rebuild_state(game: Game, upto: int | None = None) -> rules.GameState:
    """Return the rules state after the event numbered `upto` (the newest by default), from
    the event log alone."""
    start, events = rules_events(game)
    if upto is not None:
        events = [event for event in events if event.number <= upto]
    return fold(start, events).final


class Replay:
    """A finished game as a sequence of steps: step 0 is the deal, step n the state after the
    n-th rules event of the log. Loads the game's seats and events once (2 queries) and folds
    them once."""

    def __init__(self, game: Game):
        self.game = game
        self.seats = list(game.seats.select_related("user").order_by("number"))
        start, self.events = rules_events(game)
        self.moves = fold(start, self.events)
        names = [seat.user.username for seat in self.seats]
        self.turns = [
            TurnStep(turn.number, turn.step, "" if turn.seat is None else names[turn.seat])
            for turn in self.moves.turns
        ]

    @property
    def last_step(self) -> int:
        return self.moves.last_step

    def clamp(self, step) -> int:
        try:
            step = int(step)
        except (TypeError, ValueError):
            return 0
        return min(max(step, 0), self.last_step)

    def state_at(self, step: int) -> rules.GameState:
        return self.moves.states[step]

    def turn_at(self, step: int) -> int | None:
        return self.moves.turn_at(step)

    def step_of_turn(self, number) -> int | None:
        for turn in self.turns:
            if str(turn.number) == str(number) or (turn.number is None and number == "finishing"):
                return turn.step
        return None

    def versions_at(self, step: int) -> tuple[int, int | None]:
        """The game's versions while `step` was what the table showed: from its event's (0 for
        the deal) until the next step's event, or None for the last step."""
        event = self.event_at(step)
        following = self.event_at(step + 1) if step < self.last_step else None
        return (event.number if event else 0), (following.number if following else None)

    def event_at(self, step: int) -> Event | None:
        return self.events[step - 1] if step > 0 else None

    def describe(self, step: int) -> str:
        """Return what happened at `step`, in words."""
        event = self.event_at(step)
        if event is None:
            return "The deal: the pool is laid out and every board is empty."
        return describe_event(event, self.seats[event.seat].user.username)

    def view_at(self, step: int) -> GameView:
        return replay_view(self.game, self.seats, self.state_at(step))


ACTION_WORDS = {
    "draft": "drafted the {tile}",
    "confirm_draft": "confirmed the draft",
    "undo_draft": "put the drafted tile back",
    "take_last": "took the {tile}, the column's last tile",
    "place": "placed the {tile} on {space}",
    "rotate": "turned the tile on {space} {direction}",
    "move": "moved the tile on {from_space} to {to_space}",
    "swap": "swapped the tiles on {space_a} and {space_b}",
    "return": "returned the tile on {space} to the tray",
    "clear": "cleared the board",
    "undo": "undid their last change to the board",
    "redo": "redid a change to the board",
    "finish": "finished",
    "resign": "{left}: the server plays the seat from here",
}
# Why a seat left, by the cause of its Resign event (games/play/leaving.py).
LEFT_WORDS = {
    Event.Cause.PLAYER: "resigned",
    Event.Cause.ABANDONED: "timed out too often",
    Event.Cause.EXPELLED: "was voted out after timeouts in a row",
}


CAUSE_WORDS = {
    Event.Cause.TIMEOUT: " (time ran out)",
    Event.Cause.DEADLINE: " (the finishing time ran out)",
    Event.Cause.STAND_IN: " (the server, for a player who left)",
}


def describe_event(event: Event, username: str) -> str:
    if event.kind == "conclude":
        return "Nobody is left playing: the game ends with every board as it stands."
    action = event.action or {}
    words = {
        "tile": tile_view(action["tile_id"]).label if "tile_id" in action else "",
        **{key: rules.space_words(action[key]) for key in action if "space" in key},
        "direction": "anticlockwise" if action.get("quarter_turns") == 3 else "clockwise",
        "left": LEFT_WORDS.get(event.cause, "left"),
    }
    text = ACTION_WORDS.get(event.kind, event.kind.replace("_", " ")).format(**words)
    cause = "" if event.kind == "resign" else CAUSE_WORDS.get(event.cause, "")
    return f"{username} {text}{cause}."


def replay_view(game: Game, seats: list[Seat], state: rules.GameState) -> GameView:
    """Return the GameView of `state`, for nobody, so the game's own partials draw the replay.

    No selection and no viewer: nothing is interactive. Each seat is a copy whose `finished`
    is the state's, not the final one.
    """
    seat_views = []
    for seat in seats:
        shown = copy.copy(seat)
        shown.finished = state.finished[seat.number]
        current = state.phase == rules.DRAFTING and state.current == seat.number
        spaces = space_views(state.boards[seat.number])
        seat_views.append(seat_view(shown, state, spaces, is_viewer=False, is_current=current))
    return state_view(game, state, seat_views)
