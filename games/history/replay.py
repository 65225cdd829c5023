"""The replay of a finished game, step by step, on the rules engine's fold of its log."""

import copy
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from games import rules
from games.models import Event, Game, Seat
from games.rules.tiles import TILES, paths_to_letters
from games.selectors import GameView, seat_view, space_views, state_view


@dataclass(frozen=True)
class TurnStep:
    """A turn of the replay's list: where it begins, and who drafts in it."""

    number: int | None  # None: the finishing phase after the last draft
    step: int
    player: str = ""

    @property
    def label(self):
        if self.number is None:
            return pgettext("the game's phase", "finishing")
        return _("turn %(number)s") % {"number": self.number}


def rules_events(game: Game) -> tuple[dict, list[Event]]:
    """Return the data of the game's start event and its rules events after it, in order."""
    events = list(game.events.order_by("number"))
    start = next(event for event in events if event.kind == "started")
    return start.data, [event for event in events if event.action is not None]


def fold(start: dict, events: list[Event]) -> rules.Replay:
    """The rules engine's one fold of a stored log."""
    return rules.Replay.from_start(start, [(event.seat, event.action) for event in events])


def rebuild_state(game: Game, upto: int | None = None) -> rules.GameState:
    """Return the rules state after the event numbered `upto` (the newest by default), from
    the event log alone."""
    start, events = rules_events(game)
    if upto is not None:
        events = [event for event in events if event.number <= upto]
    return fold(start, events).final


class ReplayPage:
    """A finished game as the replay page shows it, step by step: step 0 is the deal, step n
    the state after the n-th rules event of the log, each with its words, its turn and its
    view. Loads the game's seats and events once (2 queries) and folds them once, with the rules'
    `Replay`."""

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
            return _("The deal: the pool is laid out and every board is empty.")
        return describe_event(event, self.seats[event.seat].user.username)

    def view_at(self, step: int) -> GameView:
        return replay_view(self.game, self.seats, self.state_at(step))


# What a player did at a step of a finished game's replay.
ACTION_WORDS = {
    # Translators: what a player did at a step of a finished game's replay. %(player)s is a
    # username; a tile is named by its colour and kind and its paths ("red corner, paths
    # north, east"); a space "row 2, column 3". The game's own terms: the draft (taking a tile
    # from the draw column of the pool), the tray (a player's tiles not on their board), the
    # board.
    "draft": gettext_lazy("%(player)s drafted the %(tile)s"),
    "confirm_draft": gettext_lazy("%(player)s confirmed the draft"),
    "undo_draft": gettext_lazy("%(player)s put the drafted tile back"),
    "take_last": gettext_lazy("%(player)s took the %(tile)s, the column's last tile"),
    "place": gettext_lazy("%(player)s placed the %(tile)s on %(space)s"),
    "rotate": gettext_lazy("%(player)s turned the tile on %(space)s clockwise"),
    "move": gettext_lazy("%(player)s moved the tile on %(from_space)s to %(to_space)s"),
    "swap": gettext_lazy("%(player)s swapped the tiles on %(space_a)s and %(space_b)s"),
    "return": gettext_lazy("%(player)s returned the tile on %(space)s to the tray"),
    "clear": gettext_lazy("%(player)s cleared the board"),
    "undo": gettext_lazy("%(player)s undid their last change to the board"),
    "redo": gettext_lazy("%(player)s redid a change to the board"),
    "finish": gettext_lazy("%(player)s finished"),
}
ROTATE_BACK = gettext_lazy("%(player)s turned the tile on %(space)s anticlockwise")
# Why a seat left, by the cause of its Resign event (games/play/leaving.py).
LEFT_WORDS = {
    Event.Cause.PLAYER: gettext_lazy("%(player)s resigned: the server plays the seat from here"),
    Event.Cause.ABANDONED: gettext_lazy(
        "%(player)s timed out too often: the server plays the seat from here"
    ),
    Event.Cause.EXPELLED: gettext_lazy(
        "%(player)s was voted out after timeouts in a row: the server plays the seat from here"
    ),
}
LEFT = gettext_lazy("%(player)s left: the server plays the seat from here")
OTHER_ACTION = gettext_lazy("%(player)s %(action)s")  # an event of a kind not known here

CAUSE_WORDS = {
    # Translators: the end of a step's description in the replay: %(what)s is what a player
    # did; the words in brackets say why the server did it for them.
    Event.Cause.TIMEOUT: gettext_lazy("%(what)s (time ran out)."),
    Event.Cause.DEADLINE: gettext_lazy("%(what)s (the finishing time ran out)."),
    Event.Cause.STAND_IN: gettext_lazy("%(what)s (the server, for a player who left)."),
}
# Translators: the end of a step's description in the replay: %(what)s is what a player did.
SENTENCE = gettext_lazy("%(what)s.")

SIDE_WORDS = {
    # Translators: the sides of a tile that its paths reach, e.g. "paths north, east".
    "N": gettext_lazy("north"),
    "E": gettext_lazy("east"),
    "S": gettext_lazy("south"),
    "W": gettext_lazy("west"),
}


def tile_words(tile_id: int) -> str:
    """A tile as the replay names it, in the reader's language: "red corner, paths north, east"."""
    sides = ", ".join(
        str(SIDE_WORDS[letter]) for letter in paths_to_letters(TILES[tile_id].paths())
    )
    # Translators: a tile in the replay: its colour and kind, then the sides its paths reach.
    return _("%(tile)s, paths %(sides)s") % {"tile": say(rules.tile_name(tile_id)), "sides": sides}


def say(words: rules.Words) -> str:
    """The rules' words (games/rules/i18n.py) in the reader's language."""
    return words.say(_, ngettext)


def describe_event(event: Event, username: str) -> str:
    if event.kind == "conclude":
        return _("Nobody is left playing: the game ends with every board as it stands.")
    action = event.action or {}
    words = {
        "player": username,
        "tile": tile_words(action["tile_id"]) if "tile_id" in action else "",
        **{key: say(rules.space_name(action[key])) for key in action if "space" in key},
    }
    if event.kind == "resign":
        what = LEFT_WORDS.get(event.cause, LEFT) % words
        return SENTENCE % {"what": what}
    if event.kind == "rotate" and action.get("quarter_turns") == 3:
        template = ROTATE_BACK
    else:
        template = ACTION_WORDS.get(event.kind)
    if template is None:
        what = OTHER_ACTION % {"player": username, "action": event.kind.replace("_", " ")}
    else:
        what = template % words
    return CAUSE_WORDS.get(event.cause, SENTENCE) % {"what": what}


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
