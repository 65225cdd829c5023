"""What a viewer sees of a game, as of one moment: the view model every page, answer and push
is drawn from (`GameView`, its seats and their clocks), read once per version and then seen by
each viewer (`as_seen_by`).

`game_view` runs a fixed number of queries whatever the number of players.
"""

import copy
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from django.utils.translation import gettext

from accounts import vacations
from games import move_log, presence, rules
from games.access import Viewer
from games.drawing.ahead import AheadView, ahead_view
from games.drawing.log_page import LogPage, LogRow, log_page, log_row
from games.drawing.rematch import RematchView, rematch_view
from games.drawing.spaces import LazySpaces, SpaceView, TileView, space_words, tile_view
from games.models import Event, ExpelVote, Game, Seat, electorate, votes_needed
from games.rules.tiles import TILES
from games.state_store import load_state, read_game


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
    spaces: Sequence[SpaceView]
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
    log: move_log.Log | None = None  # what happened (games/move_log.py), as far as it is known
    # What happened since the viewer last saw the game, besides their own doing (a page load
    # tells it once: `since_last_visit`).
    since_visit: list[move_log.Entry] = field(default_factory=list)
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
        return move_log.summary_sentence(self.since_visit, self.reader) if self.since_visit else ""

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


def game_view(
    game: Game,
    viewer: Viewer | None,
    selection: Selection | None = None,
    seats: list[Seat] | None = None,
    known_events: Sequence[Event] = (),
    online: frozenset[int] | None = None,
) -> GameView:
    """Return what `viewer` sees of a started game, as of one moment.

    Pass `seats` only with the game they were read with by `state_store.read_game`, or as the
    transaction that changed both left them (games/play/actions/common.py `Played`, whose new events
    are `known_events`: the move log need not read them, and whose `online` is who was
    watching, if it read that already); otherwise both are read again together, whatever the
    caller loaded before.
    """
    if seats is None:
        game, seats = read_game(game.pk)
    state = load_state(game, seats)
    log = move_log.log_of(game, seats, known_events)
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
        spaces = LazySpaces(board, selected=chosen.space, legal=legal)
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
    spaces: Sequence[SpaceView],
    *,
    is_viewer: bool,
    is_current: bool,
    online: bool = False,
    last_tile: int | None = None,
    clock: ClockView | None = None,
    vacation_until: datetime | None = None,
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


def state_view(game: Game, state: rules.GameState, seats: list[SeatView], **extra: Any) -> GameView:
    """The view of `state` with these seats: the pool as it stands, and who views it."""
    return GameView(
        game=game,
        seats=seats,
        viewer_seat=next((seat for seat in seats if seat.is_viewer), None),
        columns=[[tile_view(tile) for tile in column] for column in state.columns],
        pool_rows=state.pool_rows(),
        pool_depth=rules.layout_of(state.players, state.layout)[2],
        removed=[tile_view(tile) for tile in state.removed],
        draw_column=state.draw_column(),
        **extra,
    )


def as_seen_by(view: GameView, viewer: Viewer | None) -> GameView:
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


def with_queued_draft(view: GameView, queued_draft: dict | list | None) -> GameView:
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
