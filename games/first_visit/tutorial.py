"""The guided first game: a real game against the easy computer player, on a short deal chosen
so that every step of a first game can happen early, with the page pointing at what to do next.

Each step is done when the game says so: its state (a tile on its colour, two paths joined, a
closed structure) or its events (the player's own draft, confirmation, rotation), read on the
server after every move, so a step is never ticked by a click that did not happen, nor missed
because the player did it another way (drag, keyboard, the tile's menu). Only "see the score"
is the player's word (a button), and skipping the guide.

The deal (TUTORIAL_SEED in the short layout, TUTORIAL_LAYOUT: four columns of four tiles, eight
drafts each, so the whole game takes minutes; checked by tests/first_visit/test_tutorial.py):
the guest drafts first, and the first draw column holds four ends (pink, two yellow, red);
whichever the guest takes first and whichever the computer takes next, an end is left whose
colour lies beside the first's on the guest's board, so two ends facing each other close a
chip worth 2, as in the rules' own example.
"""

from dataclasses import dataclass

from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games import rules
from games.models import Event, Game, Seat
from games.rules.analysis import structures
from games.rules.tiles import TILE_NAMES, TILES, Kind

TUTORIAL_SEED = 107
TUTORIAL_LAYOUT = rules.SHORT


@dataclass(frozen=True)
class Step:
    key: str
    title: object  # lazy text
    do: object  # what to do, the page's pointer words
    why: object  # why it matters
    target: str  # a CSS selector of the game page's part to point at


STEPS = (
    Step(
        "take",
        pgettext_lazy("a guided game's step", "Take a tile"),
        _(
            "Click a tile in the outlined column of the pool: the draw column. An end (one path, "
            "with a square pad) is a good first tile."
        ),
        _(
            "Each turn you take one tile from the draw column: the rightmost column that still "
            "has tiles. What you take, your opponent cannot."
        ),
        "#pool .draw-column",
    ),
    Step(
        "confirm",
        pgettext_lazy("a guided game's step", "Confirm your draft"),
        _("Press Confirm draft (or the C key). Until you do, Undo draft puts the tile back."),
        _("Confirming ends your turn: the computer takes its tile, then it is yours again."),
        "#confirm-draft",
    ),
    Step(
        "place",
        pgettext_lazy("a guided game's step", "Place it on its colour"),
        _(
            "Click the tile in your tray, then a space of the same colour on your board: the "
            "spaces where it fits light up. You may also drag it."
        ),
        _(
            "A tile belongs on a space of its own colour; on another colour it is striped, and "
            "you could not finish with it there."
        ),
        ".seat.mine .tray",
    ),
    Step(
        "turn",
        pgettext_lazy("a guided game's step", "Turn it"),
        _("Click the tile on your board and press a rotate button (or R): it turns a quarter."),
        _(
            "Paths must meet paths: turning a tile points its paths at its neighbours, never "
            "at the board's edge."
        ),
        ".seat.mine .board",
    ),
    Step(
        "join",
        pgettext_lazy("a guided game's step", "Join two paths"),
        _("Take another tile on your turn and place it beside the first, paths facing each other."),
        _("Tiles joined path to path make a structure: only a structure can score."),
        ".seat.mine .board",
    ),
    Step(
        "close",
        pgettext_lazy("a guided game's step", "Close a structure"),
        _(
            "Leave no path of the structure open: two ends facing each other are a closed "
            "structure already."
        ),
        _("A closed structure is a chip. Your biggest one is your microchip: it is what scores."),
        ".seat.mine .board",
    ),
    Step(
        "score",
        pgettext_lazy("a guided game's step", "See your score"),
        _(
            "Your score is under your board: the chip's value (each tile counts its paths, 1 to "
            "4) minus 2 for every tile of yours outside it, in your tray too."
        ),
        _(
            "Two ends facing each other are worth 2. Every tile left over costs 2: take "
            "tiles that fit your chip."
        ),
        ".seat.mine .live-score",
    ),
    Step(
        "finish",
        pgettext_lazy("a guided game's step", "Play on and finish"),
        _(
            "Draft and build until the pool is empty, then press Finish. No tile may be on the "
            "wrong colour or point off the board then; tiles may stay in your tray."
        ),
        _("The best score wins. That is the whole game: well done!"),
        ".status .finish, #pool",
    ),
)
STEP_KEYS = tuple(step.key for step in STEPS)


@dataclass(frozen=True)
class Progress:
    """Where a player is in their guided game."""

    step: Step | None  # the step to do now; None when every step is done
    number: int  # 1-based; len(STEPS) + 1 when done
    done: tuple[str, ...]
    hint: str = ""

    @property
    def total(self) -> int:
        return len(STEPS)

    @property
    def finished(self) -> bool:
        return self.step is None


def progress(game: Game, seat: Seat, state: rules.GameState, score_seen: bool) -> Progress:
    """The first step not done yet, from the game's state and the seat's own events."""
    number = seat.number
    kinds = set(
        Event.objects.filter(game=game, seat=number, cause=Event.Cause.PLAYER).values_list(
            "kind", flat=True
        )
    )
    board = state.boards[number]
    placed = [(space, cell) for space, cell in enumerate(board.cells) if cell is not None]
    found = structures(board)
    done = {
        "take": "draft" in kinds,
        "confirm": "confirm_draft" in kinds,
        "place": any(TILES[cell.tile].colour == board.colours[space] for space, cell in placed),
        "turn": "rotate" in kinds,
        "join": any(structure.tiles >= 2 for structure in found),
        "close": any(structure.closed for structure in found),
        "score": score_seen,
        "finish": bool(state.finished[number]) or game.status == Game.Status.ENDED,
    }
    finished = [key for key in STEP_KEYS if done[key]]
    for index, step in enumerate(STEPS):
        if not done[step.key]:
            return Progress(step, index + 1, tuple(finished), _hint(step, state, number))
    return Progress(None, len(STEPS) + 1, tuple(finished))


def _hint(step: Step, state: rules.GameState, seat: int) -> str:
    """A concrete suggestion for joining: an end, in the tray or the draw column, whose colour
    is on a free space beside a placed tile (the deal makes one likely)."""
    if step.key != "join":
        return ""
    board = state.boards[seat]
    for space, cell in enumerate(board.cells):
        if cell is None:
            continue
        row, col = divmod(space, 5)
        neighbours = [
            r * 5 + c
            for r, c in ((row, col - 1), (row, col + 1), (row - 1, col), (row + 1, col))
            if 0 <= r < 5 and 0 <= c < 5 and board.cells[r * 5 + c] is None
        ]
        for tile in [*state.trays[seat], *state.draw_tiles()]:
            if TILES[tile].kind != Kind.END:
                continue
            if any(board.colours[n] == TILES[tile].colour for n in neighbours):
                name = gettext(TILE_NAMES[(TILES[tile].colour, TILES[tile].kind)])
                return str(_("The %(tile)s would fit beside your tile, on its colour.")) % {
                    "tile": name
                }
    return ""
