"""Reads for pages and pushes: what a viewer sees of a game, the lobby, the dashboard.

Every function here runs a fixed number of queries whatever the number of players or games.
"""

import copy
import functools
import json
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    When,
    Window,
)
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext, pgettext_lazy

from accounts import blocking, following, vacations
from accounts.models import Block, User
from games import chat, moves, presence, rules
from games.markers import Marks, board_marks
from games.models import (
    ExpelVote,
    Game,
    Invitation,
    Seat,
    electorate,
    votes_needed,
    waiting_for_move,
)
from games.rules import ahead
from games.rules.analysis import SpaceStatus
from games.rules.tiles import COLOUR_NAMES, TILE_PATHS, TILES, paths_to_letters
from games.state_store import load_state, read_game
from infra.words import and_list

SIDE_NAMES = {
    # Translators: a side of a tile, in a list of the sides its paths run to ("north, east").
    "N": gettext_lazy("north"),
    "E": gettext_lazy("east"),
    "S": gettext_lazy("south"),
    "W": gettext_lazy("west"),
}


@dataclass(frozen=True)
class TileView:
    id: int
    kind: str
    colour: str
    paths: int
    rotation: int = 0

    @property
    def value(self):
        return TILES[self.id].value

    @property
    def name(self) -> str:
        """The tile's name in the active language: "red cross"."""
        return moves.tile_words(self.id)

    @property
    def label(self):
        sides = ", ".join(str(SIDE_NAMES[letter]) for letter in paths_to_letters(self.paths))
        # Translators: a tile as a screen reader names it: its name and the sides its paths run
        # to ("red corner, paths north, east"); "paths" however many there are.
        return gettext("%(tile)s, paths %(sides)s") % {"tile": self.name, "sides": sides}


def tile_view(tile_id: int, rotation: int = 0) -> TileView:
    tile = TILES[tile_id]
    return TileView(
        tile_id, tile.kind.value, tile.colour.value, TILE_PATHS[tile_id][rotation], rotation
    )


@dataclass
class SpaceView:
    index: int
    colour: str
    tile: TileView | None
    status: SpaceStatus | None
    selected: bool = False
    # With a tray tile selected: the rotation that fits here legally, or None. With a placed
    # tile selected: its rotation, if it may be moved here legally.
    legal_rotation: int | None = None
    # "chip" (the structure that scores), "closed" (another closed one), or "" (open, or empty).
    structure: str = ""
    marks: Marks | None = None  # what is wrong with its tile, side by side (games/markers.py)

    @property
    def row(self):
        return self.index // 5

    @property
    def col(self):
        return self.index % 5

    @property
    def label(self):
        """The tile and the space, where it is, how the tile fares and what is wrong with it."""
        return self.words(marks=True)

    @property
    def name(self):
        """The label without what is wrong with the tile (a control carries it as its title)."""
        return self.words(marks=False)

    def words(self, *, marks: bool) -> str:
        where = space_words(self.index)
        colour = colour_words(self.colour)
        if self.tile is None:
            # Translators: an empty space of a player's board, as a screen reader names it:
            # "empty red space, row 2, column 3" (the space's colour).
            return gettext("empty %(colour)s space, %(where)s") % {"colour": colour, "where": where}
        status = STATUS_WORDS[self.status.status if self.status else "ok"]
        # Translators: a placed tile as a screen reader names it: the tile ("red corner, paths
        # north, east"), the colour of its space, where it is, and how it fares ("ok",
        # "warning", "illegal").
        text = gettext("%(tile)s on %(colour)s space, %(where)s: %(status)s") % {
            "tile": self.tile.label,
            "colour": colour,
            "where": where,
            "status": status,
        }
        if self.marks and marks:
            # Translators: a placed tile's words followed by what is wrong with it.
            text = pgettext("marks of a tile", "%(tile)s (%(marks)s)") % {
                "tile": text,
                "marks": self.marks.words(),
            }
        if self.structure in STRUCTURE_WORDS:
            text = STRUCTURE_WORDS[self.structure] % {"tile": text}
        return text


def space_words(space: int) -> str:
    """A space in the active language: "row 2, column 3"."""
    return rules.space_name(space).say(gettext, ngettext)


def colour_words(colour: str) -> str:
    """A colour's name in the active language: "red"."""
    return gettext(COLOUR_NAMES[rules.Colour(colour)])


STRUCTURE_WORDS = {
    # Translators: a placed tile's words, and that it is part of the chip (the structure of
    # tiles that scores).
    "chip": pgettext_lazy("tile in a structure", "%(tile)s, in the chip"),
    # Translators: a placed tile's words, and that it is part of a closed structure (one whose
    # paths all end on tiles of it) that is not the chip.
    "closed": pgettext_lazy("tile in a structure", "%(tile)s, in a closed structure"),
}
STATUS_WORDS = {
    # Translators: how a placed tile fares, in its words for a screen reader: "ok", "warning"
    # (something is wrong that placing more tiles may mend), "illegal".
    "ok": pgettext_lazy("status of a placed tile", "ok"),
    "warning": pgettext_lazy("status of a placed tile", "warning"),
    "illegal": pgettext_lazy("status of a placed tile", "illegal"),
}


@dataclass(frozen=True)
class ClockView:
    """A player's clock as their name shows it (templates/games/partials/clock.html): the time
    `left` as it was drawn, and for a running turn its `deadline` and the `pauses` (weekends,
    vacations) between the turn's start and it, from which games/static/games/clocks.js counts
    it down; both are the same at every drawing of a version, page or push. Without a
    `deadline`, a Fischer bank at rest (not their turn)."""

    left: timedelta
    running: bool = False
    deadline: datetime | None = None
    pauses: tuple[tuple[datetime, datetime], ...] = ()
    stopped_for: str = ""  # "vacation" or "weekend", when it does not run as it is drawn

    @property
    def left_seconds(self) -> int:
        return int(self.left.total_seconds())


def clock_view(game: Game, seat: Seat, *, waited_for: bool, now: datetime) -> ClockView | None:
    """The clock of `seat` at `now`: running down to its deadline while the game waits for it,
    a Fischer bank at rest otherwise, or nothing."""
    deadline = seat.clock_deadline if waited_for else None
    if deadline is None:
        if game.fischer and game.is_playing and game.phase == rules.DRAFTING and seat.bank:
            return ClockView(seat.bank)
        return None
    calendar = game.calendar(seat.user)
    pauses = tuple(calendar.pauses(game.turn_started_at or now, deadline))
    stopped = ""
    if calendar.paused(now):
        stopped = "vacation" if vacations.on_vacation(seat.user, now) else "weekend"
    left = calendar.counted(now, deadline)
    return ClockView(left, not stopped, deadline, pauses, stopped)


@dataclass
class SeatView:
    seat: Seat
    spaces: list[SpaceView]
    tray: list[TileView]
    score: rules.Score
    can_finish: bool
    is_viewer: bool
    is_current: bool
    pending_tile: int | None
    illegal_count: int
    # With the table's strict-finish option, the spaces whose tiles have an open path: they
    # keep the player from finishing (`open_paths` says them).
    open_spaces: tuple[int, ...] = ()
    # Whether the player has arranging steps to undo or redo (rules GameState.undo/redo).
    can_undo: bool = False
    can_redo: bool = False
    # Whether the player has this game open now (games/presence.py); pushes keep it current.
    online: bool = False
    # The tile the player got last (their draft, a forced take, a timeout's), marked on the board.
    last_tile: int | None = None
    # Their clock, shown by their name, and the end of their vacation while they are on one.
    clock: ClockView | None = None
    vacation_until: datetime | None = None
    # Why the player left the game ("resigned", "abandoned", "expelled": Seat.Left), as of the
    # state drawn; "" while they play. The server plays the seat of a player who left.
    left: str = ""

    @property
    def open_paths(self) -> str:
        """`open_spaces` in words, in the active language (a view is drawn in many)."""
        return "; ".join(space_words(space) for space in self.open_spaces)

    @property
    def left_words(self) -> str:
        return Seat.Left(self.left).label if self.left else ""

    @property
    def user(self):
        return self.seat.user

    @property
    def number(self):
        return self.seat.number


@dataclass
class Selection:
    """What the viewer has picked on their own board: a tray tile or a placed tile."""

    tray_tile: int | None = None
    space: int | None = None

    @classmethod
    def parse(cls, text: str | None) -> "Selection":
        text = (text or "").strip()
        # ASCII digits only, and few: int() refuses "²" and over 4300 digits (it raises).
        if not 2 <= len(text) <= 4 or not (text[1:].isascii() and text[1:].isdigit()):
            return cls()
        number = int(text[1:])
        if text[0] == "t" and 0 <= number < len(TILES):
            return cls(tray_tile=number)
        if text[0] == "s" and 0 <= number < 25:
            return cls(space=number)
        return cls()

    def __str__(self):
        if self.tray_tile is not None:
            return f"t{self.tray_tile}"
        if self.space is not None:
            return f"s{self.space}"
        return ""


@dataclass
class GameView:
    game: Game
    seats: list[SeatView]
    viewer_seat: SeatView | None
    columns: list[list[TileView]] = field(default_factory=list)
    # Each column's tiles' rows as they were dealt (rules `GameState.pool_rows`), and how many
    # rows a column was dealt: a tile is drawn in its row while the tiles above it are taken.
    pool_rows: tuple[tuple[int, ...], ...] = ()
    pool_depth: int = 0
    removed: list[TileView] = field(default_factory=list)
    draw_column: int | None = None
    selection: Selection = field(default_factory=Selection)
    error: str = ""
    error_space: int | None = None
    error_tile: int | None = None
    log: moves.Log | None = None  # what happened (games/moves.py), as far as it is known
    # What happened since the viewer last saw the game, besides their own doing (a page load
    # tells it once: `since_last_visit`).
    since_visit: list[moves.Entry] = field(default_factory=list)
    # The standing votes to hand a seat to the server (games/play/leaving.py): for each seat
    # number, the user ids of its voters. Read only while some seat may be voted out.
    votes: dict[int, list[int]] = field(default_factory=dict)
    # The state the game's page is drawn from (None for a step of the replay): what the
    # viewer's own queued draft is checked against.
    rules_state: rules.GameState | None = None

    @functools.cached_property
    def ahead(self) -> "AheadView | None":
        """The viewer's Drafting-ahead panel (None: they have no seat, or it is a replay)."""
        seat = self.viewer_seat
        if seat is None or self.rules_state is None:
            return None
        return ahead_view(self.game, self.rules_state, seat.seat)

    @property
    def next_draw_column(self) -> int | None:
        """The pool column the viewer's next turn draws from, while they wait for it."""
        found = self.ahead
        return found.column if found is not None and found.mode in ("queue", "forced") else None

    @property
    def since_visit_words(self) -> str:
        return moves.summary_sentence(self.since_visit, self.reader) if self.since_visit else ""

    @property
    def news_tiles(self) -> str:
        """The tiles that moved since the last visit, for the page to highlight ("12 40")."""
        return " ".join(str(e.tile) for e in self.since_visit if e.tile is not None)

    @property
    def news_columns(self) -> str:
        """The pool's columns that lost a tile since the last visit ("3 9", 0-based)."""
        columns = sorted({e.column for e in self.since_visit if e.column is not None})
        return " ".join(str(column) for column in columns)

    @property
    def fits_nowhere(self) -> bool:
        """The selected tray tile fits no space of the viewer's board legally."""
        seat = self.viewer_seat
        if seat is None or self.selection.tray_tile is None:
            return False
        return all(space.legal_rotation is None for space in seat.spaces)

    @property
    def reader(self) -> int | None:
        """The viewer's seat number, to whom the log says "you"."""
        return self.viewer_seat.number if self.viewer_seat else None

    def log_page(self, page: int = 1) -> "LogPage":
        return log_page(self.log, self.reader, page) if self.log else LogPage([], 1, 1)

    @property
    def log_first_page(self) -> "LogPage":
        return self.log_page(1)

    @property
    def notices(self) -> list["LogRow"]:
        """What the server did to the viewer that they must know of, since they last dismissed
        it (the page's notices: a timeout, their seat handed over, the deadline)."""
        seat = self.viewer_seat
        if self.log is None or seat is None:
            return []
        return [
            log_row(entry, seat.number)
            for entry in self.log.entries
            if entry.number > seat.seat.dismissed_version and entry.alarms(seat.number)
        ]

    @property
    def current_seat(self):
        if self.game.current_seat is None or not self.game.is_playing:
            return None
        return self.seats[self.game.current_seat]

    @property
    def status_seat(self) -> "SeatView | None":
        """Whose clock the status line shows: the drafter's, or in the finishing phase the
        viewer's own while they have still to finish."""
        if not self.game.is_playing:
            return None
        if self.game.phase == rules.FINISHING:
            seat = self.viewer_seat
            return seat if seat is not None and not seat.seat.finished else None
        return self.current_seat

    @property
    def my_turn(self):
        current = self.current_seat
        return current is not None and current.is_viewer and not current.left

    @property
    def may_resign(self) -> bool:
        """Whether the viewer may resign: a player still playing who has not finished."""
        me = self.viewer_seat
        return me is not None and self.game.is_playing and not me.left and not me.seat.finished

    @property
    def resign_question(self) -> str:
        """What the Resign button asks before it goes, saying what will happen."""
        me = self.viewer_seat
        staying = [seat for seat in self.seats if not seat.left and seat is not me]
        people = [seat for seat in staying if not seat.user.is_bot]
        if len(staying) == 1:
            return gettext("Resign? The game ends now and %(player)s wins.") % {
                "player": staying[0].user.username
            }
        if not people:
            return gettext(
                "Resign? No other person is playing: the game ends now, with you ranked last."
            )
        return gettext(
            "Resign? The server's easy player takes over your seat for the rest of the game, "
            "and you are ranked after every player who stays."
        )

    @property
    def expel_votes(self) -> list["ExpelRow"]:
        """The seats the viewer may vote to hand to the server, or has voted on: each with its
        votes so far and how many are needed (a strict majority of the other people playing)."""
        me = self.viewer_seat
        if me is None or me.left or me.user.is_bot or not self.game.is_playing:
            return []
        rows = []
        seats = [seat.seat for seat in self.seats]
        for seat in self.seats:
            if seat is me or not seat.seat.may_be_voted_out:
                continue
            voters = {other.user_id for other in electorate(seats, seat.seat)}
            cast = [user_id for user_id in self.votes.get(seat.number, ()) if user_id in voters]
            rows.append(ExpelRow(seat, len(cast), votes_needed(len(voters)), me.user.pk in cast))
        return rows

    @functools.cached_property
    def rematch(self) -> "RematchView | None":
        """The rematch box of an ended game's page (not of a replay's step)."""
        if self.game.status != Game.Status.ENDED or self.rules_state is None:
            return None
        viewer = self.viewer_seat.user if self.viewer_seat is not None else AnonymousUser()
        return rematch_view(self.game.pk, viewer, player=self.viewer_seat is not None)

    @property
    def ranking(self):
        return sorted(self.seats, key=lambda seat: (seat.seat.place or 99, seat.number))

    @property
    def shared_places(self):
        places = [seat.seat.place for seat in self.seats if seat.seat.place is not None]
        return {place for place in places if places.count(place) > 1}

    @property
    def other_seats(self):
        return [seat for seat in self.seats if not seat.is_viewer]


@dataclass(frozen=True)
class ExpelRow:
    """A vote on handing `seat` to the server, as its viewer sees it."""

    seat: SeatView
    votes: int
    needed: int
    voted: bool  # the viewer's vote is among them


def space_views(board, *, selected=None, legal=None) -> list[SpaceView]:
    """Return the 25 spaces of a rules Board as drawn: tile, marker, selection, where it fits,
    and the structure it is part of."""
    statuses = rules.diagnose(board)
    marks = board_marks(board)
    legal = legal or {}
    chip = rules.find_chip(board.occ, board.n, board.e, board.s, board.w).mask
    closed = 0
    for structure in rules.structures(board):
        if structure.closed:
            closed |= structure.mask
    closed &= ~chip
    return [
        SpaceView(
            index=index,
            colour=board.colours[index].value,
            tile=None if cell is None else tile_view(cell.tile, cell.rotation),
            status=statuses[index],
            selected=selected == index,
            legal_rotation=legal.get(index),
            structure="chip" if chip >> index & 1 else "closed" if closed >> index & 1 else "",
            marks=marks[index],
        )
        for index, cell in enumerate(board.cells)
    ]


# --- what each space, tray tile and pool tile shows its viewer ----------------------------------
#
# Worked out here, once per drawing, so that the partials that draw them decide nothing. Each is
# hashable and holds everything its partial draws but the page's URLs, the version and the
# colour-blind setting, which games/live/pieces.py adds when it caches the markup.


@dataclass(frozen=True, slots=True)
class SpaceControl:
    """One space of a board as its viewer sees it (templates/games/partials/space.html)."""

    index: int
    colour: str
    tile: TileView | None
    status: str  # "ok", "warning", "illegal", or "empty" without a tile
    marks: Marks | None  # drawn over its tile, each with its words as a tooltip
    selected: bool
    legal: bool  # the selected tray tile fits here, or the selected placed tile may move here
    error: bool  # the refused move was about this space of the viewer's own board
    structure: str  # "chip", "closed" or "": drawn outlined, or not
    last: bool  # its tile is the one the board's player got last
    # What clicking it does: "" (nothing), "select" or "deselect" (links) or an action posted
    # with `vals`.
    action: str
    # The button's aria-label; with no button, the tile's (an empty space names itself). A
    # button's leaves out what is wrong with its tile: its `title` says it (a tooltip over the
    # tile, and the button's description for screen readers).
    label: str
    title: str = ""
    vals: tuple[tuple[str, int], ...] = ()  # the posted action's fields, in hx-vals order
    # The selected tile's menu beside it (rotate either way, return to the tray).
    menu: bool = False

    @property
    def menu_place(self) -> str:
        """Where the menu goes: a column of buttons on the next space toward the board's middle,
        level with the tile and running toward the middle rows, so that it stays on the board."""
        row, col = divmod(self.index, 5)
        side = "left" if col >= 3 else "right"
        return f"{side} {('top', 'top', 'middle', 'bottom', 'bottom')[row]}"


@dataclass(frozen=True, slots=True)
class TrayControl:
    """One tile of a tray (templates/games/partials/tray_tile.html)."""

    tile: TileView
    selected: bool
    pending: bool  # drafted, not yet confirmed
    last: bool  # the tile its player got last
    action: str  # "" (nothing), "select" or "deselect" (links)


@dataclass(frozen=True, slots=True)
class PoolControl:
    """One tile of the pool (templates/games/partials/pool_tile.html)."""

    tile: TileView
    error: bool  # the refused draft was of this tile
    draftable: bool  # a button that drafts it


def arranging(view: GameView, seat: SeatView) -> bool:
    """Whether `view`'s viewer may arrange `seat`'s board and tray now (it is theirs)."""
    return seat.is_viewer and view.game.is_playing and not seat.seat.finished and not seat.left


def space_controls(view: GameView, seat: SeatView) -> list[SpaceControl]:
    """Return what each space of `seat`'s board shows `view`'s viewer, in board order."""
    selection = view.selection if arranging(view, seat) else None
    error_space = view.error_space if seat.is_viewer else None
    return [
        _space_control(space, selection, space.index == error_space, seat.last_tile)
        for space in seat.spaces
    ]


def _space_control(
    space: SpaceView, selection: Selection | None, error: bool, last_tile: int | None
) -> SpaceControl:
    index, tile = space.index, space.tile
    # On the viewer's board to arrange every tile is a button, which says the marks in its title.
    label = space.label if selection is None else space.name
    last = tile is not None and tile.id == last_tile
    if last:
        # Translators: a placed tile's words, and that it is the one the player got last.
        label = gettext("%(tile)s, the last tile this player got") % {"tile": label}
    vals = ()
    # With a tile picked up, "it" in a space's label is that tile (its own button is pressed).
    if selection is None:  # not the viewer's board to arrange: a drawing only
        action = ""
    elif selection.tray_tile is not None and tile is None:
        action = "place"
        rotation = space.legal_rotation or 0
        vals = (("tile_id", selection.tray_tile), ("space", index), ("rotation", rotation))
        # Translators: the label of an empty space with a tile picked up from the tray ("it").
        if space.legal_rotation is not None:
            label = gettext("Place it on the %(space)s (fits)") % {"space": label}
        else:
            label = gettext("Place it on the %(space)s") % {"space": label}
    elif selection.space is not None and space.selected:
        # Its menu does the rotating and returning; the tile itself puts it down again.
        action, label = "deselect", gettext("Put down the %(tile)s") % {"tile": label}
    elif selection.space is not None and tile is not None:
        action, vals = "swap", (("space_a", selection.space), ("space_b", index))
        # Translators: the label of a placed tile with another placed tile picked up ("it").
        label = gettext("Swap it with the %(tile)s") % {"tile": label}
    elif selection.space is not None:
        action, vals = "move", (("from_space", selection.space), ("to_space", index))
        # Translators: the label of an empty space with a placed tile picked up ("it").
        if space.legal_rotation is not None:
            label = gettext("Move it to the %(space)s (fits)") % {"space": label}
        else:
            label = gettext("Move it to the %(space)s") % {"space": label}
    elif tile is not None:
        action, label = "select", gettext("Select the %(tile)s") % {"tile": label}
    else:
        action = ""
    status = space.status
    return SpaceControl(
        index=index,
        colour=space.colour,
        tile=tile,
        status=status.status if status else "empty",
        marks=space.marks,
        selected=space.selected,
        legal=space.legal_rotation is not None,
        error=error,
        structure=space.structure if tile is not None else "",
        last=last,
        action=action,
        # A tile inside a button describes itself; alone, it says where it is and how it fares.
        label=label if action or tile is not None else "",
        vals=vals,
        title=space.marks.words() if space.marks and selection is not None else "",
        menu=action == "deselect",
    )


def tray_controls(view: GameView, seat: SeatView) -> list[TrayControl]:
    """Return what each tile of `seat`'s tray shows `view`'s viewer."""
    mine = arranging(view, seat)
    chosen = view.selection.tray_tile if mine else None
    return [
        TrayControl(
            tile=tile,
            selected=tile.id == chosen,
            pending=tile.id == seat.pending_tile,
            last=tile.id == seat.last_tile,
            action=("deselect" if tile.id == chosen else "select") if mine else "",
        )
        for tile in seat.tray
    ]


def pool_controls(view: GameView) -> list[list[PoolControl]]:
    """Return what each tile of the pool shows `view`'s viewer, column by column."""
    viewer_seat = view.viewer_seat
    drafting = (
        view.my_turn and viewer_seat.pending_tile is None and view.game.phase == rules.DRAFTING
    )
    return [
        [
            PoolControl(
                tile=tile,
                error=tile.id == view.error_tile,
                # The last tile of a column is taken by the server, not drafted.
                draftable=drafting and number == view.draw_column and len(column) > 1,
            )
            for tile in column
        ]
        for number, column in enumerate(view.columns)
    ]


def game_view(
    game: Game,
    viewer,
    selection: Selection | None = None,
    seats=None,
    known_events=(),
    online: frozenset[int] | None = None,
) -> GameView:
    """Return what `viewer` sees of a started game, as of one moment.

    Pass `seats` only with the game they were read with by `state_store.read_game`, or as the
    transaction that changed both left them (games/play/actions.py `Played`, whose new events
    are `known_events`: the move log need not read them, and whose `online` is who was
    watching, if it read that already); otherwise both are read again together, whatever the
    caller loaded before.
    """
    if seats is None:
        game, seats = read_game(game.pk)
    state = load_state(game, seats)
    log = moves.log_of(game, seats, known_events)
    last_taken = log.last_taken()
    selection = selection or Selection()
    now = timezone.now()
    # A forced take is the server's, at once: no clock runs for it.
    waiting = set() if state.forced_action() is not None else state.to_move()
    viewer_id = getattr(viewer, "pk", None)
    if online is None:
        online = presence.watching(game.pk, [seat.user_id for seat in seats])
    seat_views = []
    for seat in seats:
        is_viewer = seat.user_id == viewer_id
        board = state.boards[seat.number]
        tray = list(state.trays[seat.number])
        chosen = selection if is_viewer and not seat.finished else Selection()
        if chosen.tray_tile is not None and chosen.tray_tile not in tray:
            chosen = Selection()
        if chosen.space is not None and board.cells[chosen.space] is None:
            chosen = Selection()
        legal = {}
        if chosen.tray_tile is not None:
            for space, rotation in rules.legal_spots(board, chosen.tray_tile):
                legal.setdefault(space, rotation)
        elif chosen.space is not None:  # where it may be moved (a move keeps its rotation)
            rotation = board.cells[chosen.space].rotation
            legal = dict.fromkeys(rules.legal_moves(board, chosen.space), rotation)
        spaces = space_views(board, selected=chosen.space, legal=legal)
        if is_viewer:
            selection = chosen
        seat_views.append(
            seat_view(
                seat,
                state,
                spaces,
                is_viewer=is_viewer,
                is_current=game.is_playing and state.current == seat.number,
                online=seat.user_id in online,
                last_tile=last_taken.get(seat.number),
                clock=clock_view(game, seat, waited_for=seat.number in waiting, now=now),
                vacation_until=seat.user.vacation_until
                if vacations.on_vacation(seat.user, now)
                else None,
            )
        )
    viewer_seat = next((seat for seat in seat_views if seat.is_viewer), None)
    chosen = selection if viewer_seat else Selection()
    votes = _votes(game, seats) if any(seat.may_be_voted_out for seat in seats) else {}
    return state_view(
        game, state, seat_views, selection=chosen, log=log, votes=votes, rules_state=state
    )


def _votes(game: Game, seats: list[Seat]) -> dict[int, list[int]]:
    """The standing votes of the game, by seat number (one query)."""
    number_of = {seat.pk: seat.number for seat in seats}
    found: dict[int, list[int]] = {}
    for seat_id, voter_id in ExpelVote.objects.filter(game=game).values_list("seat_id", "voter_id"):
        found.setdefault(number_of[seat_id], []).append(voter_id)
    return found


def seat_view(
    seat: Seat,
    state: rules.GameState,
    spaces,
    *,
    is_viewer: bool,
    is_current: bool,
    online=False,
    last_tile=None,
    clock=None,
    vacation_until=None,
) -> SeatView:
    """The view of one seat of `state`, its board's spaces drawn already."""
    number, board, pending = seat.number, state.boards[seat.number], state.pending
    blockers = state.finish_blockers(number)
    illegal = rules.illegal_mask(board)
    return SeatView(
        seat=seat,
        spaces=spaces,
        tray=[tile_view(tile) for tile in state.trays[number]],
        score=state.score(number),
        can_finish=not blockers,
        is_viewer=is_viewer,
        is_current=is_current,
        pending_tile=pending.tile_id if pending and pending.seat == number else None,
        illegal_count=illegal.bit_count(),
        open_spaces=tuple(rules.bits(blockers & ~illegal)),
        can_undo=bool(state.undo_of(number)),
        can_redo=bool(state.redo_of(number)),
        online=online,
        last_tile=last_tile,
        left=seat.left if state.left_in(number) is not None else "",
        clock=clock,
        vacation_until=vacation_until,
    )


def state_view(game: Game, state: rules.GameState, seats: list[SeatView], **extra) -> GameView:
    """The view of `state` with these seats: the pool as it stands, and who views it."""
    return GameView(
        game=game,
        seats=seats,
        viewer_seat=next((seat for seat in seats if seat.is_viewer), None),
        columns=[[tile_view(tile) for tile in column] for column in state.columns],
        pool_rows=state.pool_rows(),
        pool_depth=rules.LAYOUTS[state.players][2],
        removed=[tile_view(tile) for tile in state.removed],
        draw_column=state.draw_column(),
        **extra,
    )


def as_seen_by(view: GameView, viewer) -> GameView:
    """Return `view` (drawn for no one, with no selection) as `viewer` sees it.

    Cheaper than calling `game_view` again: the boards are already diagnosed and scored, only
    which seat is the viewer's changes. Live pushes draw one view per game version this way.
    """
    viewer_id = getattr(viewer, "pk", None)
    seats = [replace(seat, is_viewer=seat.seat.user_id == viewer_id) for seat in view.seats]
    return replace(
        view,
        seats=seats,
        viewer_seat=next((seat for seat in seats if seat.is_viewer), None),
        selection=Selection(),
        since_visit=[],
    )


def with_queued_draft(view: GameView, queued_draft) -> GameView:
    """`view` with its viewer's queued draft as `queued_draft` (read afresh: a queue changes
    without a new version, so a view kept for a version may hold an older one)."""
    seat = view.viewer_seat
    if seat is None or seat.seat.queued_draft == queued_draft:
        return view
    fresh = copy.copy(seat.seat)
    fresh.queued_draft = queued_draft
    return replace(view, viewer_seat=replace(seat, seat=fresh))


def since_last_visit(view: GameView) -> GameView:
    """`view` with what happened since its viewer last saw the game (their seat's
    `seen_version`, games/seen.py), told by the page they open now."""
    seat = view.viewer_seat
    if seat is None or view.log is None:
        return view
    news = view.log.since(seat.seat.seen_version, besides=seat.number)
    return replace(view, since_visit=[entry for entry in news if entry.kind in NEWS])


# What the since-your-last-visit summary tells (not the lobby, which the page shows anyway).
NEWS = {
    "draft", "queued", "forced_take", "timeout", "finish", "deadline", "ended",
    "resigned", "abandoned", "expelled", "expel_vote", "concluded",
}  # fmt: skip


def can_view(game: Game, user, seats=None) -> bool:
    """A public table may be seen by anyone; a private one by its players and the people invited
    to it, and while an open one waits for players, by whoever may take a seat. A signed-out
    visitor sees no game of a player who shows their games to signed-in players only
    (accounts/privacy.py), whoever else plays it: its page, its replay, its socket. `seats`,
    the game's seats with their players if read already, spares a query."""
    if not user.is_authenticated:
        return not game.private and not _hidden_from_visitors(game, seats)
    if not game.private:
        return True
    if game.is_waiting and game.access == Game.Access.OPEN:
        return True
    return game.seats.filter(user=user).exists() or game.invitations.filter(user=user).exists()


def may_see_game(game_id: int, user, *, invite_token=None) -> bool:
    """Whether `user` may see the game numbered `game_id` (`can_view`), or holds the link to
    its table (`invite_token`); False when there is no such game, so that a private game and a
    missing one are told apart by nobody. One query for a public game."""
    game = (
        Game.objects.filter(pk=game_id)
        .only("pk", "private", "status", "access", "invite_token")
        .first()
    )
    if game is None:
        return False
    # As bytes: compare_digest refuses str with non-ASCII characters (a forged token may).
    has_link = (
        isinstance(invite_token, str)
        and game.status == Game.Status.WAITING
        and secrets.compare_digest(invite_token.encode(), game.invite_token.encode())
    )
    return has_link or can_view(game, user)


def _hidden_from_visitors(game: Game, seats=None) -> bool:
    """Whether a player of `game` shows their games to signed-in players only."""
    if seats is not None:
        return any(seat.user.games_shown_to == User.GamesShownTo.SIGNED_IN for seat in seats)
    return game.seats.filter(user__games_shown_to=User.GamesShownTo.SIGNED_IN).exists()


def visible_games(user) -> Q:
    """The games `user` may see (a filter on Game): the public ones, and the private ones where
    they have a seat or an invitation; to a signed-out visitor, the public ones where nobody
    shows their games to signed-in players only."""
    if not user.is_authenticated:
        hiding = Seat.objects.filter(
            game=OuterRef("pk"), user__games_shown_to=User.GamesShownTo.SIGNED_IN
        )
        return Q(private=False) & ~Q(Exists(hiding))
    # From the user's own seats and invitations (their indexes), not from every private game.
    seated = Seat.objects.filter(user=user).values("game_id")
    invited = Invitation.objects.filter(user=user).values("game_id")
    return Q(private=False) | Q(private=True, pk__in=seated) | Q(private=True, pk__in=invited)


# A list of games (the dashboard, the lobby, an archive) shows who sits where, scores and places,
# never a board, a tray or the pool: those JSON columns, most of a row's bytes and of the time to
# read it, stay in the database.
SEAT_BULK = ("tray", "board", "colours", "undo", "redo", "queued_draft", "best_board")
GAME_BULK = ("pool", "pending_draft")
# A listed player is a name, and whether a computer or a program plays it (`bot_badge`): their
# other columns (dates, settings, the password hash) are most of what a list spends making its
# players.
USER_LISTED = ("id", "username", "bot_level", "bot_owner_id")
USER_BULK = tuple(
    f"user__{field.attname}"
    for field in User._meta.concrete_fields
    if field.attname not in USER_LISTED
)


def listed_seats():
    """The seats of listed games, with their players' names, without their boards."""
    return Seat.objects.select_related("user").defer(*SEAT_BULK, *USER_BULK)


def with_listed_games(seats):
    """`seats` with their games, for a list: neither the boards nor the pools."""
    return seats.select_related("game").defer(*SEAT_BULK, *(f"game__{name}" for name in GAME_BULK))


def open_games(*, player_count=None, rated=None, exclude_user=None, viewer=None):
    """Tables waiting for players that anyone may join, newest first; for `viewer`, none where
    someone sits who is in a block with them, whoever blocked whom (accounts/blocking.py)."""
    games = (
        Game.objects.filter(status=Game.Status.WAITING, access=Game.Access.OPEN)
        .select_related("created_by")
        .annotate(seated=Count("seats"))
        .order_by("-created_at")
    )
    kept_apart = blocking.blocked_ids(getattr(viewer, "pk", None))
    if kept_apart:
        games = games.exclude(seats__user_id__in=kept_apart)
    if player_count:
        games = games.filter(player_count=player_count)
    if rated is not None:
        games = games.filter(rated=rated)
    return games.defer(*GAME_BULK).prefetch_related(Prefetch("seats", queryset=listed_seats()))


def waiting_room(game: Game, viewer, seats=None) -> dict:
    """What the waiting room of a table shows its viewer: the seats (with their users), whether
    the viewer has one and created the table, the free seats. One query, none with `seats`; the
    same for the page and for its pushes (games/live/drawing.py `draw_lobby`)."""
    if seats is None:
        seats = list(game.seats.select_related("user").order_by("number"))
    user_id = getattr(viewer, "pk", None)
    seated = user_id is not None and any(seat.user_id == user_id for seat in seats)
    return {
        "game": game,
        "seats": seats,
        "seated": seated,
        # An invitee who may say no (the page only: a push draws no form).
        "invited": lambda: (
            not seated and user_id is not None and game.invitations.filter(user_id=user_id).exists()
        ),
        "is_creator": user_id is not None and user_id == game.created_by_id,
        "free_seats": max(game.player_count - len(seats), 0) if game.is_waiting else 0,
    }


WATCH_LIMIT = 25


def games_to_watch(user, *, limit=WATCH_LIMIT):
    """Games being played now that `user` may watch, the most recent turn first (at most
    `limit`): every public table, and the private ones where the user has a seat or an
    invitation. Two queries (the games, their seats with their players), however many."""
    games = Game.objects.filter(visible_games(user), status=Game.Status.PLAYING)
    return list(
        # A game in play always has its turn's start: the order of games_game_watch.
        games.order_by("-turn_started_at", "-started_at", "-pk")
        .defer(*GAME_BULK)
        .prefetch_related(Prefetch("seats", queryset=listed_seats().order_by("number")))[:limit]
    )


def current_rematch(game_id: int) -> Game | None:
    """The newest rematch of an ended game (games/play/rematches.py): waiting for its players,
    under way, over, or called off."""
    rematches = Game.objects.filter(rematch_of_id=game_id).select_related("created_by")
    return rematches.order_by("-pk").first()


@dataclass(frozen=True)
class RematchView:
    """The rematch box under an ended game's results, as one viewer sees it."""

    game_id: int
    player: bool  # the viewer played this game: they may offer or join the rematch
    rematch: Game | None
    seated: bool = False  # the viewer has a seat at the rematch's table (asked, or accepted)
    invited: bool = False  # the viewer is invited to it and has not answered yet
    asked: bool = False  # the viewer asked for it
    waiting_for: tuple[str, ...] = ()  # the invited players who have not accepted yet

    @property
    def open(self) -> bool:
        return self.rematch is not None and self.rematch.status != Game.Status.CANCELLED

    @property
    def waiting_for_words(self) -> str:
        return and_list(self.waiting_for)


def rematch_view(game_id: int, viewer, *, player: bool | None = None) -> RematchView:
    """The rematch box of an ended game for `viewer`, read afresh (a push: its offer changed).
    `player`: whether the viewer played the game, if the caller knows."""
    if player is None:
        player = (
            viewer.is_authenticated and Seat.objects.filter(game_id=game_id, user=viewer).exists()
        )
    rematch = current_rematch(game_id)
    if rematch is None or rematch.status != Game.Status.WAITING:
        return RematchView(game_id, player, rematch)
    seated = set(rematch.seats.values_list("user_id", flat=True))
    invited = [
        (user_id, name)
        for user_id, name in rematch.invitations.order_by("user__username").values_list(
            "user_id", "user__username"
        )
        if user_id not in seated
    ]
    viewer_id = viewer.pk if viewer.is_authenticated else None
    return RematchView(
        game_id,
        player,
        rematch,
        seated=viewer_id in seated,
        invited=any(user_id == viewer_id for user_id, _ in invited),
        asked=viewer_id == rematch.created_by_id,
        waiting_for=tuple(name for _, name in invited),
    )


def dashboard_seats(user):
    """The player's waiting and running games: their turn first, then the soonest deadline."""
    seats = Seat.objects.filter(
        user=user, game__status__in=[Game.Status.WAITING, Game.Status.PLAYING]
    )
    return (
        with_listed_games(seats)
        .annotate(
            my_turn=Case(
                When(waiting_for_move(), then=True), default=False, output_field=BooleanField()
            ),
            unread_chat=chat.unread_of_seat(),
        )
        .order_by("-my_turn", F("game__deadline").asc(nulls_last=True), "-game__created_at")
        .prefetch_related(Prefetch("game__seats", queryset=listed_seats().order_by("number")))
    )


# The dashboard's Following section: for each player followed, this many of their games in
# progress (the latest turn first) and of their latest results.
FOLLOWED_PLAYING = 5
FOLLOWED_RESULTS = 3


@dataclass(frozen=True)
class Followed:
    """A player the viewer follows, with the games of theirs the viewer may see."""

    player: User
    playing: list[Seat]  # their seats at games in progress, each with its game and seats
    results: list[Seat]  # their seats at their latest finished games


def _latest_each(seats, order, per_player: int) -> list[Seat]:
    """The first `per_player` of each player's `seats` by `order`, as listed seats (one query,
    and one for the games' seats): a window numbers each player's rows, so however many games
    they have played, only these are read."""
    numbered = seats.annotate(
        nth=Window(RowNumber(), partition_by=[F("user_id")], order_by=order)
    ).filter(nth__lte=per_player)
    return list(
        with_listed_games(numbered)
        .order_by("user_id", "nth")
        .prefetch_related(Prefetch("game__seats", queryset=listed_seats().order_by("number")))
    )


def followed(user) -> list[Followed]:
    """The players `user` follows (by name), each with their games in progress that `user` may
    watch (a private table only if `user` has a seat or an invitation there: `visible_games`)
    and their latest results. Five queries, however many players and games."""
    players = following.followed_players(user)
    if not players:
        return []
    seats = Seat.objects.filter(
        user_id__in=[player.pk for player in players],
        game__in=Game.objects.filter(visible_games(user)),
    )
    playing = _latest_each(
        seats.filter(game__status=Game.Status.PLAYING),
        [F("game__turn_started_at").desc(nulls_last=True), F("game_id").desc()],
        FOLLOWED_PLAYING,
    )
    results = _latest_each(
        seats.filter(game__status=Game.Status.ENDED),
        [F("game__ended_at").desc(nulls_last=True), F("game_id").desc()],
        FOLLOWED_RESULTS,
    )
    return [
        Followed(
            player,
            [seat for seat in playing if seat.user_id == player.pk],
            [seat for seat in results if seat.user_id == player.pk],
        )
        for player in players
    ]


@dataclass(frozen=True)
class Vacation:
    """The player's vacation days as the dashboard shows them (accounts/vacations.py)."""

    on: bool
    until: datetime | None
    left: timedelta

    @property
    def left_words(self) -> str:
        return vacations.days_words(self.left)

    @property
    def max_days(self) -> float:
        """The longest vacation the form offers: the days left, to a tenth, rounded down."""
        return int(self.left / timedelta(days=1) * 10 + 1e-9) / 10

    @property
    def suggested_days(self) -> float:
        return min(7.0, self.max_days)


def vacation_of(user, now: datetime | None = None) -> Vacation:
    now = now or timezone.now()
    on = vacations.on_vacation(user, now)
    return Vacation(on, user.vacation_until if on else None, vacations.days_left(user, now))


def recent_finished_seats(user, limit=10):
    return (
        with_listed_games(Seat.objects.filter(user=user, game__status=Game.Status.ENDED))
        .annotate(unread_chat=chat.unread_of_seat())
        .order_by("-game__ended_at")
        .prefetch_related(Prefetch("game__seats", queryset=listed_seats().order_by("number")))[
            :limit
        ]
    )


def invitations_for(user):
    """The player's invitations to tables still waiting, but those from a player they are in a
    block with (made before the block: its seat would be refused)."""
    return (
        Invitation.objects.filter(user=user, game__status=Game.Status.WAITING)
        .exclude(
            Exists(
                Block.objects.filter(
                    Q(blocker_id=user.pk, blocked_id=OuterRef("invited_by_id"))
                    | Q(blocker_id=OuterRef("invited_by_id"), blocked_id=user.pk)
                )
            )
        )
        .select_related("game", "invited_by")
        .order_by("-created_at")
    )


# --- drafting ahead: the viewer's queued draft --------------------------------------------------


@dataclass(frozen=True)
class QueuedTile:
    """One tile of the viewer's queue, with the queue each of its buttons posts."""

    tile: TileView
    rank: int  # 1 for the first choice
    there: bool  # still in the column their next turn draws from
    up: str  # hx-vals of the queue with it one place higher ("" for the first)
    down: str
    remove: str


@dataclass(frozen=True)
class AheadView:
    """The Drafting-ahead panel of a player (templates/games/partials/draft_ahead.html): what it
    says, and for each button the whole queue it posts (the last one posted wins, so two tabs
    cannot mix their edits). Hashable: its drawing is cached on it (games/live/drawing.py)."""

    game_id: int
    version: int
    # "" nothing to say; "queue" they wait and may queue; "forced" their next turn takes the
    # last tile; "took" the queue drafted for them, to confirm; "none_left" none of it was left.
    mode: str = ""
    column: int | None = None  # the column their next turn draws from (0-based)
    left: int = 0  # the tiles it will hold when that turn begins
    turns_before: int = 0
    choices: tuple[tuple[TileView, str], ...] = ()  # the column's tiles not queued, and "add"
    queue: tuple[QueuedTile, ...] = ()
    confirm: bool = False
    took: TileView | None = None  # "took": the tile it drafted
    tiles_vals: str = ""  # the queue as it is (the "confirm it for me" switch posts it)
    clear: str = ""
    error: str = ""

    @property
    def queue_words(self) -> str:
        """The queue in words, for screen readers: "1. red cross, 2. blue tee"."""
        # Translators: a tile in a player's queue of drafts, by its rank: "1. red cross".
        said = pgettext_lazy("a queued tile", "%(rank)s. %(tile)s")
        return ", ".join(said % {"rank": item.rank, "tile": item.tile.name} for item in self.queue)


def ahead_view(game: Game, state: rules.GameState, seat: Seat, error: str = "") -> AheadView:
    """What the Drafting-ahead panel shows the player of `seat` (games/rules/ahead.py): theirs
    alone, drawn for nobody else."""
    base = AheadView(game.pk, game.version, error=error)
    if not game.is_playing or state.phase != rules.DRAFTING or seat.left:
        return base
    queue = seat.queue
    if state.current == seat.number:  # their turn: what the queue did as it began
        done = seat.queued_draft if isinstance(seat.queued_draft, dict) else {}
        if "took" not in done or done.get("at") != game.pool_version:
            return base
        took, pending = done["took"], state.pending
        if took is None and pending is None:
            return replace(base, mode="none_left", column=state.draw_column())
        if isinstance(took, int) and pending is not None and pending.tile_id == took:
            return replace(base, mode="took", took=tile_view(took), column=pending.column)
        return base
    turn = ahead.next_turn(state, seat.number)
    if turn is None:
        return base
    where = replace(base, column=turn.column, left=turn.left, turns_before=turn.turns_before)
    if turn.forced:
        return replace(where, mode="forced")
    column = state.columns[turn.column]
    tiles, confirm = list(queue.tiles), queue.confirm

    def vals(order) -> str:
        return _queue_vals(order, confirm, game.version)

    items = []
    for index, tile in enumerate(tiles):
        up = _swapped(tiles, index, index - 1) if index else None
        down = _swapped(tiles, index, index + 1) if index + 1 < len(tiles) else None
        items.append(
            QueuedTile(
                tile=tile_view(tile),
                rank=index + 1,
                there=tile in column,
                up=vals(up) if up else "",
                down=vals(down) if down else "",
                remove=vals(tiles[:index] + tiles[index + 1 :]),
            )
        )
    full = len(tiles) >= ahead.MAX_QUEUED
    return replace(
        where,
        mode="queue",
        choices=tuple(
            (tile_view(tile), "" if full else vals([*tiles, tile]))
            for tile in column
            if tile not in tiles
        ),
        queue=tuple(items),
        confirm=confirm,
        tiles_vals=json.dumps({"tiles": _tiles_text(tiles), "version": game.version}),
        clear=vals([]),
    )


def _queue_vals(tiles, confirm: bool, version: int) -> str:
    """The hx-vals of a queue to post: its tiles, "confirm it for me", the page's version."""
    return json.dumps(
        {"tiles": _tiles_text(tiles), "confirm": "1" if confirm else "", "version": version}
    )


def _swapped(tiles: list[int], a: int, b: int) -> list[int]:
    order = list(tiles)
    order[a], order[b] = order[b], order[a]
    return order


def _tiles_text(tiles) -> str:
    return ",".join(str(tile) for tile in tiles)


# --- the move log, as a page draws it ----------------------------------------------------------

LOG_TURNS_PER_PAGE = 8


@dataclass(frozen=True)
class LogRow:
    """One entry of the move log, in words for its reader."""

    number: int
    when: object
    text: str
    kind: str
    servers: bool  # the server's doing (a forced take, a timeout, a deadline)
    mine: bool  # the reader's own, or done to them


@dataclass(frozen=True)
class LogTurn:
    label: str
    rows: list[LogRow]  # newest first
    key: str = ""  # its id on the page: the turn's number, "0" before the start, "finishing"


@dataclass(frozen=True)
class LogPage:
    """A page of the move log: its turns, newest first."""

    turns: list[LogTurn]
    page: int
    pages: int
    per_page: int = LOG_TURNS_PER_PAGE

    def news(self, version: int) -> list[tuple[LogTurn, bool]]:
        """The turns that `version` added entries to, oldest first, each with whether it is new
        (its first entry is of this version): what a page that shows the version before lacks."""
        touched = [turn for turn in self.turns if any(row.number == version for row in turn.rows)]
        return [(turn, turn.rows[-1].number == version) for turn in reversed(touched)]

    @property
    def newer(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def older(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def log_row(entry: moves.Entry, reader: int | None) -> LogRow:
    return LogRow(
        number=entry.number,
        when=entry.when,
        text=entry.sentence(reader),
        kind=entry.kind,
        # Another player's queued draft reads as their draft (their queue is private).
        servers=entry.kind in moves.SERVERS_WORK
        and (entry.kind != "queued" or entry.seat == reader),
        mine=reader is not None and entry.seat == reader,
    )


def log_page(log: moves.Log, reader: int | None, page: int = 1) -> LogPage:
    """Page `page` (1: the newest turns) of the log, for the player at seat `reader`."""
    turns = log.turns()
    pages = max(1, -(-len(turns) // LOG_TURNS_PER_PAGE))
    page = min(max(page, 1), pages)
    shown = turns[(page - 1) * LOG_TURNS_PER_PAGE : page * LOG_TURNS_PER_PAGE]
    return LogPage(
        [
            LogTurn(
                turn.label,
                [log_row(entry, reader) for entry in turn.entries],
                "finishing" if turn.number is None else str(turn.number),
            )
            for turn in shown
        ],
        page,
        pages,
    )
