"""The game state and its transitions, in the style of OpenSpiel / scalachess.

`new_game(players, seed)` builds the start; `state.apply(action, seat)` returns the next state or
raises a RuleError; replay.py folds `apply` over an event log.

Phases: "drafting" (one seat at a time drafts; arranging is free for everyone), "finishing" (the
pool is empty; every seat arranges and presses Finish), "ended" (every seat has finished, or the
game ended early: at most one seat had not left it, or the platform concluded it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from . import errors as err
from .actions import (
    Action,
    Clear,
    Conclude,
    ConfirmDraft,
    Draft,
    Finish,
    Move,
    Place,
    Redo,
    Resign,
    Return,
    Rotate,
    Swap,
    TakeLast,
    Undo,
    UndoDraft,
    action_from_json,
)
from .analysis import Score, illegal_mask, markers, score
from .board import SPACES, Board, Placed, bits, colours_from_names, space_name
from .deal import STANDARD, check_setup, deal, dealt_places, layout_of
from .i18n import and_words, gettext_noop, ngettext_lazy
from .ranking import places
from .tiles import DISTINCT_ROTATIONS, TILE_COUNT, TILES

DRAFTING = "drafting"
FINISHING = "finishing"
ENDED = "ended"
PHASES = (DRAFTING, FINISHING, ENDED)
FORMAT = 1
#: How many arranging steps a seat can undo: enough for a long rearrangement, while the state
#: (stored with every move) stays small.
MAX_UNDO = 50


@dataclass(frozen=True, slots=True)
class PendingDraft:
    """A draft not yet confirmed: which seat took which tile from where in the pool."""

    seat: int
    tile_id: int
    column: int
    index: int

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "tile_id": self.tile_id,
            "column": self.column,
            "index": self.index,
        }


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A seat's board cells and tray at one moment: what Undo and Redo step between.

    A state keeps them as text ("space.tile.rotation,...|tray,..."): every move loads and
    stores a game's state with up to 2 x MAX_UNDO of them a seat, and text passes through
    JSON whole, while only the one stepped to is ever read (measured: parsing 5 seats' full
    histories on every load cost 7.5 ms against 0.3 ms for the rest of the state)."""

    cells: tuple[Placed | None, ...]
    tray: tuple[int, ...]

    @staticmethod
    def text_of(state: GameState, seat: int) -> str:
        placed = ",".join(
            f"{space}.{cell.tile}.{cell.rotation}"
            for space, cell in enumerate(state.boards[seat].cells)
            if cell is not None
        )
        return f"{placed}|{','.join(map(str, state.trays[seat]))}"

    @classmethod
    def from_text(cls, text: str) -> Arrangement:
        """Return the arrangement written by `text_of`; raise BadState if it is damaged."""
        try:
            placed, tray = text.split("|")
            cells: list[Placed | None] = [None] * SPACES
            for part in filter(None, placed.split(",")):
                space, tile, rotation = map(int, part.split("."))
                if not 0 <= space < SPACES or cells[space] is not None:
                    raise ValueError(f"bad space {space}")
                cells[space] = _cell([tile, rotation])
            return cls(tuple(cells), tuple(int(tile) for tile in filter(None, tray.split(","))))
        except (ValueError, AttributeError) as exc:
            raise _damaged(str(exc)) from None

    def tiles(self) -> list[int]:
        return [cell.tile for cell in self.cells if cell is not None] + list(self.tray)


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    score: int
    chip_tiles: int
    chip_value: int
    penalty_tiles: int
    place: int

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "score": self.score,
            "chip_tiles": self.chip_tiles,
            "chip_value": self.chip_value,
            "penalty_tiles": self.penalty_tiles,
            "place": self.place,
        }


@dataclass(frozen=True, slots=True)
class GameState:
    players: int
    seed: int
    #: Pool columns left to right, each a tuple of tile ids top to bottom (taken tiles removed).
    columns: tuple[tuple[int, ...], ...]
    #: Tiles back in the box (2 players), sorted.
    removed: tuple[int, ...]
    #: Each seat's tray, in the order the tiles arrived there.
    trays: tuple[tuple[int, ...], ...]
    #: Each seat's board (its colours included).
    boards: tuple[Board, ...]
    phase: str
    #: Whose turn it is while drafting; None in the finishing and ended phases.
    current: int | None
    finished: tuple[bool, ...]
    pending: PendingDraft | None
    #: Completed drafts (confirmed drafts and forced takes) in the whole game.
    drafts: int
    #: Each seat's arrangements to step back to (Undo), oldest first, and forward to again
    #: (Redo), newest undone last; both forgotten when the seat's tiles change (a draft, a forced
    #: take, an undone draft, Finish). Empty tuples for a state built without them.
    #: Each a text of `Arrangement`.
    undo: tuple[tuple[str, ...], ...] = ()
    redo: tuple[tuple[str, ...], ...] = ()
    #: The table option of seed 002 (the online edition): Finish needs every placed path
    #: closed, not only every tile legal.
    strict_finish: bool = False
    #: For each seat, the turn in which it left the game (`Resign`), or None while it stays: the
    #: turn is the draft then under way (`drafts + 1`; after the last draft, the finishing phase
    #: counts as one more turn). A seat that left is ranked after those that stayed and still
    #: plays on (the platform's stand-in makes its moves). Empty for a state built without it.
    left: tuple[int | None, ...] = ()
    #: The pool's layout (deal.py): the rules' standard one, or the guided game's short one.
    layout: str = STANDARD

    # --- queries -----------------------------------------------------------------------------
    def current_player(self) -> int | None:
        """Return the seat whose turn it is (None once drafting is over)."""
        return self.current

    def is_terminal(self) -> bool:
        return self.phase == ENDED

    def waits_for(self, seat: int) -> bool:
        """Return whether the game waits for `seat` to move: it is their turn to draft (a forced
        take due for them included: the server makes it), or the pool is empty and they have
        not finished. games/models/game.py `waiting_for_move` is the same rule as a query."""
        if self.phase == DRAFTING:
            return seat == self.current
        return self.phase == FINISHING and not self.finished[seat]

    def to_move(self) -> frozenset[int]:
        """Return the seats the game waits for (see `waits_for`)."""
        return frozenset(seat for seat in range(self.players) if self.waits_for(seat))

    @property
    def board_colours(self) -> tuple[tuple, ...]:
        return tuple(b.colours for b in self.boards)

    def draw_column(self) -> int | None:
        """Return the index of the rightmost non-empty pool column, or None if the pool is empty."""
        for i in range(len(self.columns) - 1, -1, -1):
            if self.columns[i]:
                return i
        return None

    def draw_tiles(self) -> tuple[int, ...]:
        """Return the tiles of the draw column, top to bottom."""
        col = self.draw_column()
        return () if col is None else self.columns[col]

    def pool_rows(self) -> tuple[tuple[int, ...], ...]:
        """Return, for each pool column, the row each of its tiles was dealt into (0 at the top):
        a tile keeps its place in the column when a tile above it is taken. A state whose pool
        is not its seed's deal (built by hand) has its tiles in rows 0, 1, 2..."""
        places = dealt_places(self.players, self.seed, self.layout)
        found = []
        for number, column in enumerate(self.columns):
            rows = [places.get(tile, (None, 0)) for tile in column]
            if any(where != number for where, _ in rows) or rows != sorted(set(rows)):
                return tuple(tuple(range(len(column))) for column in self.columns)
            found.append(tuple(row for _, row in rows))
        return tuple(found)

    def pool_size(self) -> int:
        return sum(len(c) for c in self.columns)

    def forced_action(self) -> TakeLast | None:
        """Return the forced take due now, if any: the last tile of the draw column, for the
        current seat. The platform applies it with `apply(action, state.current)`."""
        if self.phase != DRAFTING or self.pending is not None:
            return None
        col = self.draw_column()
        if col is not None and len(self.columns[col]) == 1:
            return TakeLast(self.columns[col][0])
        return None

    def owned(self, seat: int) -> int:
        """Return how many tiles a seat owns (tray and board, a pending draft included)."""
        return len(self.trays[seat]) + self.boards[seat].tile_count

    def drafted(self, seat: int) -> int:
        """Return how many drafts of this seat are complete (a pending one not counted)."""
        pending = 1 if self.pending is not None and self.pending.seat == seat else 0
        return self.owned(seat) - pending

    def score(self, seat: int) -> Score:
        return score(self.boards[seat], len(self.trays[seat]))

    def left_in(self, seat: int) -> int | None:
        """Return the turn in which `seat` left the game, or None if it stays."""
        return self.left[seat] if self.left else None

    def staying(self) -> tuple[int, ...]:
        """Return the seats that have not left the game."""
        return tuple(seat for seat in range(self.players) if self.left_in(seat) is None)

    def ended_early(self) -> bool:
        """Whether the game ended before every board was finished (players left it)."""
        return self.phase == ENDED and not all(self.finished)

    def results(self) -> tuple[SeatResult, ...]:
        """Return each seat's score and place (final once the game has ended): the seats that
        stayed by score, then those that left, who stayed longer first (ranking.py)."""
        scores = [self.score(seat) for seat in range(self.players)]
        left = [self.left_in(seat) for seat in range(self.players)]
        ranked = places([(s.score, s.chip_tiles) for s in scores], left)
        return tuple(
            SeatResult(seat, s.score, s.chip_tiles, s.chip_value, s.penalty_tiles, ranked[seat])
            for seat, s in enumerate(scores)
        )

    def returns(self) -> tuple[int, ...]:
        """Return each seat's score (OpenSpiel's name)."""
        return tuple(r.score for r in self.results())

    def can_arrange(self, seat: int) -> bool:
        return self.phase != ENDED and not self.finished[seat]

    def undo_of(self, seat: int) -> tuple[str, ...]:
        return self.undo[seat] if self.undo else ()

    def redo_of(self, seat: int) -> tuple[str, ...]:
        return self.redo[seat] if self.redo else ()

    def finish_blockers(self, seat: int) -> int:
        """Return the mask of the placed tiles that keep `seat` from finishing: the illegal
        ones, and with the strict-finish option those with an open path too."""
        found = markers(self.boards[seat])
        return found.illegal | found.open_path if self.strict_finish else found.illegal

    def legal_actions(self, seat: int, *, arranging: bool = True) -> list[Action]:
        """Return every action `seat` may apply now, in this fixed order:

        TakeLast (when due for this seat); Draft for each draw-column tile top to bottom;
        ConfirmDraft, UndoDraft; Finish; then, if `arranging`, Place (tray order, space,
        rotation: one per distinct orientation), Rotate(space, 1), Move (from, to), Swap
        (a < b), Return (space), Clear (when the board is not empty), Undo, Redo (when there
        is something to undo or redo).
        """
        self._check_seat(seat)
        out: list[Action] = []
        if self.phase == DRAFTING and seat == self.current:
            forced = self.forced_action()
            if forced is not None:
                out.append(forced)
            elif self.pending is None:
                out.extend(Draft(t) for t in self.draw_tiles())
            else:
                out += [ConfirmDraft(), UndoDraft()]
        board = self.boards[seat]
        if self.phase == FINISHING and not self.finished[seat] and not self.finish_blockers(seat):
            out.append(Finish())
        if not arranging or not self.can_arrange(seat):
            return out
        occupied = bits(board.occ)
        empty = [i for i in range(SPACES) if not board.occ >> i & 1]
        for tile in self.trays[seat]:
            rotations = DISTINCT_ROTATIONS[TILES[tile].kind]
            out.extend(Place(tile, space, r) for space in empty for r in rotations)
        out.extend(Rotate(space) for space in occupied)
        out.extend(Move(a, b) for a in occupied for b in empty)
        out.extend(Swap(a, b) for a in occupied for b in occupied if a < b)
        out.extend(Return(space) for space in occupied)
        if occupied:
            out.append(Clear())
        if self.undo_of(seat):
            out.append(Undo())
        if self.redo_of(seat):
            out.append(Redo())
        return out

    # --- transitions -------------------------------------------------------------------------
    def apply(self, action: Action | dict, seat: int) -> GameState:
        """Return the state after `seat` does `action`; raise a RuleError if it is refused."""
        action = action_from_json(action)
        self._check_seat(seat)
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise err.BadAction(
                gettext_noop("Unknown action %(action)s."), {"action": repr(action)}
            )
        after = handler(self, action, seat)
        if action.__class__ is Undo or action.__class__ is Redo:
            return after
        return after._remembering(self, seat, arranged=action.arranging)

    def _remembering(self, before: GameState, seat: int, *, arranged: bool) -> GameState:
        """Return this state (just made from `before` by an action of `seat`) with the
        arrangement histories kept up: an arranging change can be undone, and forgets what was
        undone; a change to a seat's tiles starts that seat's history anew."""
        if arranged:
            if self is before:  # nothing changed (clearing an empty board)
                return self
            undo = (*before.undo_of(seat), Arrangement.text_of(before, seat))[-MAX_UNDO:]
            return replace(
                self,
                undo=_set(self._stacks(self.undo), seat, undo),
                redo=_set(self._stacks(self.redo), seat, ()),
            )
        kept_undo, kept_redo = self._stacks(self.undo), self._stacks(self.redo)
        for other in range(self.players):
            if not (kept_undo[other] or kept_redo[other]):
                continue
            if (
                self.trays[other] != before.trays[other]
                or self.boards[other] != before.boards[other]
                or self.finished[other] != before.finished[other]
            ):
                kept_undo = _set(kept_undo, other, ())
                kept_redo = _set(kept_redo, other, ())
        if kept_undo == self._stacks(self.undo) and kept_redo == self._stacks(self.redo):
            return self
        return replace(self, undo=kept_undo, redo=kept_redo)

    def _stacks(self, stacks: tuple) -> tuple:
        return stacks if stacks else ((),) * self.players

    def _check_seat(self, seat: object) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise err.BadSeat(
                gettext_noop("There is no seat %(seat)s in this %(players)d-player game."),
                {"seat": repr(seat), "players": self.players},
            )

    def _next_turn(self, **changes: Any) -> GameState:
        """Return the state after a completed draft: the turn passes or drafting ends."""
        state = replace(self, pending=None, drafts=self.drafts + 1, **changes)
        if state.draw_column() is None:
            return replace(state, phase=FINISHING, current=None)
        return replace(state, current=(_drafter(self) + 1) % self.players)

    def _draft(self, action: Draft, seat: int) -> GameState:
        if self.phase != DRAFTING:
            raise err.WrongPhase(gettext_noop("Drafting is over: the pool is empty."))
        if self.forced_action() is not None:
            raise err.ForcedActionDue()
        if seat != self.current:
            raise err.NotYourTurn()
        if self.pending is not None:
            raise err.DraftPending()
        col = _draw_column(self)
        column = self.columns[col]
        if action.tile_id not in column:
            raise err.NotInDrawColumn(tile=action.tile_id)
        index = column.index(action.tile_id)
        return replace(
            self,
            columns=_set(self.columns, col, column[:index] + column[index + 1 :]),
            trays=_set(self.trays, seat, self.trays[seat] + (action.tile_id,)),
            pending=PendingDraft(seat, action.tile_id, col, index),
        )

    def _check_own_pending(self, seat: int) -> PendingDraft:
        if self.phase != DRAFTING:
            raise err.WrongPhase(
                gettext_noop("Drafting is over: there is no draft to confirm or undo.")
            )
        if seat != self.current:
            raise err.NotYourTurn()
        if self.pending is None:
            raise err.NoPendingDraft()
        return self.pending

    def _confirm(self, action: ConfirmDraft, seat: int) -> GameState:
        self._check_own_pending(seat)
        return self._next_turn()

    def _undo(self, action: UndoDraft, seat: int) -> GameState:
        pending = self._check_own_pending(seat)
        tile = pending.tile_id
        trays, boards = self.trays, self.boards
        if tile in trays[seat]:
            trays = _set(trays, seat, tuple(t for t in trays[seat] if t != tile))
        else:
            board = boards[seat]
            space = board.space_of_tile(tile)
            if space is None:
                raise _damaged("the pending draft is neither in the tray nor on the board")
            boards = _set(boards, seat, board.with_cells({space: None}))
        column = self.columns[pending.column]
        column = (*column[: pending.index], tile, *column[pending.index :])
        return replace(
            self,
            columns=_set(self.columns, pending.column, column),
            trays=trays,
            boards=boards,
            pending=None,
        )

    def _take_last(self, action: TakeLast, seat: int) -> GameState:
        if self.phase != DRAFTING:
            raise err.WrongPhase(gettext_noop("Drafting is over: the pool is empty."))
        forced = self.forced_action()
        if forced is None:
            raise err.NoForcedAction()
        if seat != self.current:
            raise err.NotYourTurn()
        if action.tile_id != forced.tile_id:
            raise err.BadAction(
                # Translators: the draw column is the game's own term: the column of the pool
                # that the player drafts from this turn.
                gettext_noop("That is not the last tile of the draw column."),
                tile=action.tile_id,
            )
        col = _draw_column(self)
        return self._next_turn(
            columns=_set(self.columns, col, ()),
            trays=_set(self.trays, seat, self.trays[seat] + (forced.tile_id,)),
        )

    def _finish(self, action: Finish, seat: int) -> GameState:
        if self.finished[seat]:
            raise err.BoardFinished(gettext_noop("You have already finished."))
        if self.phase != FINISHING:
            raise err.WrongPhase(gettext_noop("You can finish only when the pool is empty."))
        illegal = illegal_mask(self.boards[seat])
        if illegal:
            first = (illegal & -illegal).bit_length() - 1
            raise err.IllegalTilesOnBoard(space=first)
        open_paths = self.finish_blockers(seat)
        if open_paths:
            spaces = bits(open_paths)
            where = and_words([space_name(space) for space in spaces])
            raise err.OpenPathsOnBoard(
                ngettext_lazy(
                    "At this table you can finish only when every placed path is closed: a path "
                    "is open at %(where)s.",
                    "At this table you can finish only when every placed path is closed: paths "
                    "are open at %(where)s.",
                    len(spaces),
                    where=where,
                ),
                space=spaces[0],
            )
        finished = _set(self.finished, seat, True)
        return replace(self, finished=finished, phase=ENDED if all(finished) else FINISHING)

    # --- leaving -----------------------------------------------------------------------------
    def _resign(self, action: Resign, seat: int) -> GameState:
        if self.phase == ENDED:
            raise err.WrongPhase(gettext_noop("The game is over."))
        if self.left_in(seat) is not None:
            raise err.AlreadyLeft()
        if self.finished[seat]:
            raise err.BoardFinished(
                gettext_noop(
                    "You have finished: your board is submitted and the game no longer waits "
                    "for you."
                )
            )
        left = _set(self.left or (None,) * self.players, seat, self.drafts + 1)
        state = replace(self, left=left)
        return state._end_early() if len(state.staying()) <= 1 else state

    def _conclude(self, action: Conclude, seat: int) -> GameState:
        if self.phase == ENDED:
            raise err.WrongPhase(gettext_noop("The game is over."))
        if len(self.staying()) == self.players:
            raise err.NobodyLeft()
        return self._end_early()

    def _end_early(self) -> GameState:
        """Return this state ended now, every board as it stands. A draft not yet confirmed is
        put back, as an undone draft is: it never happened. Nothing can be undone any more."""
        state = self
        if state.pending is not None:
            state = state._undo(UndoDraft(), state.pending.seat)
        nothing = ((),) * self.players
        return replace(state, phase=ENDED, current=None, pending=None, undo=nothing, redo=nothing)

    # --- arranging ---------------------------------------------------------------------------
    def _board_for(self, seat: int) -> Board:
        if not self.can_arrange(seat):
            raise err.BoardFinished()
        return self.boards[seat]

    def _with(self, seat: int, board: Board, tray: tuple[int, ...] | None = None) -> GameState:
        if tray is None:
            return replace(self, boards=_set(self.boards, seat, board))
        boards = _set(self.boards, seat, board)
        return replace(self, boards=boards, trays=_set(self.trays, seat, tray))

    def _place(self, action: Place, seat: int) -> GameState:
        board = self._board_for(seat)
        tray = self.trays[seat]
        if action.tile_id not in tray:
            raise err.TileNotInTray(tile=action.tile_id)
        space = _space(action.space)
        if not isinstance(action.rotation, int) or not 0 <= action.rotation <= 3:
            raise err.BadRotation(space=space)
        if board.cells[space] is not None:
            raise err.SpaceOccupied(space=space)
        tray = tuple(t for t in tray if t != action.tile_id)
        placed = Placed(action.tile_id, action.rotation)
        return self._with(seat, board.with_cells({space: placed}), tray)

    def _rotate(self, action: Rotate, seat: int) -> GameState:
        board = self._board_for(seat)
        space = _space(action.space)
        turns = action.quarter_turns
        if not isinstance(turns, int) or not 1 <= turns <= 3:
            raise err.BadRotation(
                gettext_noop("Turn a tile by 1, 2 or 3 quarter turns."), space=space
            )
        cell = _occupied(board, space)
        turned = Placed(cell.tile, (cell.rotation + turns) % 4)
        return self._with(seat, board.with_cells({space: turned}))

    def _move(self, action: Move, seat: int) -> GameState:
        board = self._board_for(seat)
        a, b = _space(action.from_space), _space(action.to_space)
        if a == b:
            raise err.BadAction(gettext_noop("Move the tile to another space."), space=a)
        cell = _occupied(board, a)
        if board.cells[b] is not None:
            raise err.SpaceOccupied(space=b)
        return self._with(seat, board.with_cells({a: None, b: cell}))

    def _swap(self, action: Swap, seat: int) -> GameState:
        board = self._board_for(seat)
        a, b = _space(action.space_a), _space(action.space_b)
        if a == b:
            raise err.BadAction(gettext_noop("Choose two different tiles to swap."), space=a)
        cell_a, cell_b = _occupied(board, a), _occupied(board, b)
        return self._with(seat, board.with_cells({a: cell_b, b: cell_a}))

    def _return(self, action: Return, seat: int) -> GameState:
        board = self._board_for(seat)
        space = _space(action.space)
        cell = _occupied(board, space)
        return self._with(seat, board.with_cells({space: None}), self.trays[seat] + (cell.tile,))

    def _step(self, seat: int, back: bool) -> GameState:
        """Undo (`back`) or redo the seat's last arranging step."""
        board = self._board_for(seat)
        undo, redo = self.undo_of(seat), self.redo_of(seat)
        source = undo if back else redo
        if not source:
            raise err.NothingToUndo() if back else err.NothingToRedo()
        target, now = Arrangement.from_text(source[-1]), Arrangement.text_of(self, seat)
        owned = sorted([*self.trays[seat], *board.tiles()])
        if sorted(target.tiles()) != owned:
            raise _damaged("an arrangement to undo or redo holds other tiles than its seat's")
        changes = {
            space: cell
            for space, (was, cell) in enumerate(zip(board.cells, target.cells, strict=True))
            if was != cell
        }
        if back:
            undo, redo = undo[:-1], (*redo, now)
        else:
            undo, redo = (*undo, now), redo[:-1]
        return replace(
            self._with(seat, board.with_cells(changes), target.tray),
            undo=_set(self._stacks(self.undo), seat, undo),
            redo=_set(self._stacks(self.redo), seat, redo),
        )

    def _undo_arranging(self, action: Undo, seat: int) -> GameState:
        return self._step(seat, back=True)

    def _redo_arranging(self, action: Redo, seat: int) -> GameState:
        return self._step(seat, back=False)

    def _clear(self, action: Clear, seat: int) -> GameState:
        board = self._board_for(seat)
        placed = board.placed()
        if not placed:
            return self
        tray = self.trays[seat] + tuple(cell.tile for _, cell in placed)
        return self._with(seat, board.with_cells({space: None for space, _ in placed}), tray)

    # --- JSON --------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "players": self.players,
            "seed": self.seed,
            "columns": [list(c) for c in self.columns],
            "removed": list(self.removed),
            "trays": [list(t) for t in self.trays],
            "colours": [b.colours_to_json() for b in self.boards],
            "boards": [b.cells_to_json() for b in self.boards],
            "phase": self.phase,
            "current": self.current,
            "finished": list(self.finished),
            "pending": None if self.pending is None else self.pending.to_json(),
            "drafts": self.drafts,
            "undo": [list(self.undo_of(seat)) for seat in range(self.players)],
            "redo": [list(self.redo_of(seat)) for seat in range(self.players)],
            "strict_finish": self.strict_finish,
            "left": [self.left_in(seat) for seat in range(self.players)],
            "layout": self.layout,
        }

    @classmethod
    def from_json(cls, data: dict) -> GameState:
        """Return the state saved by `to_json`; raise BadState if it is malformed."""
        try:
            if data.get("format") != FORMAT:
                raise ValueError(f"unknown format {data.get('format')!r}")
            pending = data["pending"]
            nobody: list[list[str]] = [[]] * data["players"]
            state = cls(
                players=data["players"],
                seed=data["seed"],
                columns=tuple(tuple(_ints(c)) for c in data["columns"]),
                removed=tuple(_ints(data["removed"])),
                trays=tuple(tuple(_ints(t)) for t in data["trays"]),
                boards=tuple(
                    Board(colours_from_names(colours), [_cell(c) for c in cells])
                    for colours, cells in zip(data["colours"], data["boards"], strict=True)
                ),
                phase=data["phase"],
                current=data["current"],
                finished=tuple(bool(f) for f in data["finished"]),
                pending=None if pending is None else PendingDraft(**pending),
                drafts=data["drafts"],
                undo=_histories(data.get("undo") or nobody),
                redo=_histories(data.get("redo") or nobody),
                strict_finish=bool(data.get("strict_finish", False)),
                left=tuple(data.get("left") or [None] * data["players"]),
                layout=data.get("layout", STANDARD),
            )
        except err.BadState:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _damaged(str(exc)) from None
        state.validate()
        return state

    def validate(self) -> None:
        """Raise BadState unless the state is consistent (every tile in exactly one place...)."""

        bad = _damaged

        try:
            check_setup(self.players, self.seed, self.layout)
        except err.BadSetup as exc:
            raise bad(exc.message) from None
        removed, columns, per_column, _ = layout_of(self.players, self.layout)
        n = self.players
        if len(self.trays) != n or len(self.boards) != n or len(self.finished) != n:
            raise bad("one tray, board and finished flag per seat")
        if len(self.columns) != columns or any(len(c) > per_column for c in self.columns):
            raise bad("wrong pool layout")
        if len(self.removed) != removed:
            raise bad("wrong number of removed tiles")
        seen = list(self.removed) + [t for c in self.columns for t in c]
        seen += [t for tray in self.trays for t in tray]
        seen += [t for b in self.boards for t in b.tiles()]
        if sorted(seen) != list(range(TILE_COUNT)):
            raise bad("every tile must be in exactly one place")
        for b in self.boards:
            if any(c is not None and not 0 <= c.rotation <= 3 for c in b.cells):
                raise bad("rotation out of range")
        if self.phase not in PHASES:
            raise bad(f"unknown phase {self.phase!r}")
        if self.left and len(self.left) != n:
            raise bad("one turn of leaving per seat")
        for turn in self.left:
            if turn is not None and (
                not isinstance(turn, int)
                or isinstance(turn, bool)
                or not 1 <= turn <= self.drafts + 1
            ):
                raise bad("a seat left in a turn that has not come")
        staying = len(self.staying())
        early = self.ended_early()
        if early and staying == n:
            raise bad("a game ends before every board is finished only when players have left")
        if self.phase != ENDED and staying <= 1:
            raise bad("a game with at most one player left has ended")
        pool_empty = self.draw_column() is None
        if pool_empty != (self.phase != DRAFTING) and not early:
            raise bad("the pool is empty exactly when drafting is over")
        if self.phase == DRAFTING:
            if not isinstance(self.current, int) or not 0 <= self.current < n:
                raise bad("no current seat while drafting")
            if any(self.finished):
                raise bad("nobody finishes while drafting")
        elif self.current is not None:
            raise bad("a current seat after drafting")
        if all(self.finished) and self.phase != ENDED:
            raise bad("the game ends when every seat has finished")
        p = self.pending
        if p is not None:
            if self.phase != DRAFTING or p.seat != self.current:
                raise bad("a pending draft belongs to the current seat while drafting")
            owner_tiles = set(self.trays[p.seat]) | set(self.boards[p.seat].tiles())
            if p.tile_id not in owner_tiles or not 0 <= p.column < columns:
                raise bad("the pending tile must be owned by its seat")
            if not 0 <= p.index <= len(self.columns[p.column]):
                raise bad("the pending tile's place in the column is out of range")
        total = sum(self.drafted(seat) for seat in range(n))
        if total != self.drafts:
            raise bad("the draft counter disagrees with the tiles owned")
        for stacks in (self.undo, self.redo):
            if stacks and len(stacks) != n:
                raise bad("one arrangement history per seat")
        # Each arrangement's tiles are checked when Undo or Redo steps to it (`_step`): checking
        # them all here would cost every load of the game more than the rest of the state.
        for seat in range(n):
            history = (*self.undo_of(seat), *self.redo_of(seat))
            if not history:
                continue
            if self.finished[seat] or len(history) > 2 * MAX_UNDO:
                raise bad("an arrangement history for a board that cannot change")
            if not all(isinstance(text, str) for text in history):
                raise bad("an arrangement to undo or redo is not text")


@dataclass(frozen=True, slots=True)
class Transition:
    """What one applied action changed about who is to move: what the platform's clock,
    notices and computer players act on (see `transition`)."""

    #: The phase before and after.
    phase_before: str
    phase: str
    #: Whose turn it is to draft after (None once drafting is over).
    current: int | None
    #: The seats the game waited for before, and waits for after (`GameState.to_move`).
    waiting_before: frozenset[int]
    waiting: frozenset[int]
    #: The drafter changed, or drafting ended: a new turn (or the finishing phase) begins.
    turn_passed: bool
    #: A forced take is due now: the server takes the draw column's last tile for `current`.
    forced_take_due: bool

    @property
    def phase_changed(self) -> bool:
        return self.phase != self.phase_before

    @property
    def ended(self) -> bool:
        return self.phase == ENDED

    @property
    def new_turn(self) -> bool:
        """A drafting turn begins (not the finishing phase, not the end)."""
        return self.turn_passed and self.phase == DRAFTING

    @property
    def finishing_began(self) -> bool:
        return self.phase_before == DRAFTING and self.phase == FINISHING

    @property
    def waiting_changed(self) -> frozenset[int]:
        """The seats for which the game began or stopped waiting."""
        return self.waiting_before ^ self.waiting


def transition(before: GameState, after: GameState) -> Transition:
    """Return what the step from `before` to `after` (one `apply`) changed about who is to
    move."""
    return Transition(
        phase_before=before.phase,
        phase=after.phase,
        current=after.current,
        waiting_before=before.to_move(),
        waiting=after.to_move(),
        turn_passed=after.current != before.current or after.phase != before.phase,
        forced_take_due=after.forced_action() is not None,
    )


T = TypeVar("T")


def _set(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _drafter(state: GameState) -> int:
    """The seat to draft (while drafting there always is one)."""
    if state.current is None:
        raise _damaged("no seat to draft while drafting")
    return state.current


def _draw_column(state: GameState) -> int:
    """The column drafted from (while drafting the pool always has one)."""
    column = state.draw_column()
    if column is None:
        raise _damaged("no draw column while drafting")
    return column


def _space(space: object) -> int:
    if not isinstance(space, int) or isinstance(space, bool) or not 0 <= space < SPACES:
        raise err.BadSpace(
            gettext_noop("There is no space %(space)s: spaces are 0 to 24."), {"space": repr(space)}
        )
    return space


def _occupied(board: Board, space: int) -> Placed:
    cell = board.cells[space]
    if cell is None:
        raise err.SpaceEmpty(space=space)
    return cell


def _damaged(why: str) -> err.BadState:
    """The state is damaged: `why` is a detail for the operators, in English."""
    return err.BadState(gettext_noop("The saved game state is damaged: %(why)s."), {"why": why})


def _histories(data: Iterable[Iterable[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(seat) for seat in data)


def _ints(items: Iterable[Any]) -> list[int]:
    out = list(items)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in out):
        raise ValueError("tile ids must be whole numbers")
    return out


def _cell(cell: Sequence[int] | None) -> Placed | None:
    if cell is None:
        return None
    tile, rotation = cell
    if not isinstance(tile, int) or not isinstance(rotation, int) or not 0 <= tile < TILE_COUNT:
        raise ValueError(f"bad cell {cell!r}")
    return Placed(tile, rotation)


_HANDLERS: dict[type[Action], Callable[[GameState, Any, int], GameState]] = {
    Draft: GameState._draft,
    ConfirmDraft: GameState._confirm,
    UndoDraft: GameState._undo,
    TakeLast: GameState._take_last,
    Finish: GameState._finish,
    Place: GameState._place,
    Rotate: GameState._rotate,
    Move: GameState._move,
    Swap: GameState._swap,
    Return: GameState._return,
    Clear: GameState._clear,
    Undo: GameState._undo_arranging,
    Redo: GameState._redo_arranging,
    Resign: GameState._resign,
    Conclude: GameState._conclude,
}


def new_game(
    players: int,
    seed: int,
    first_seat: int = 0,
    *,
    strict_finish: bool = False,
    layout: str = STANDARD,
) -> GameState:
    """Return the first state of a game: the deal for (players, seed, layout), `first_seat` to
    draft; `strict_finish` is the table option that Finish needs every placed path closed."""
    d = deal(players, seed, layout)
    if not isinstance(first_seat, int) or not 0 <= first_seat < players:
        raise err.BadSetup(
            gettext_noop("The first seat must be 0 to %(last)d."), {"last": players - 1}
        )
    return GameState(
        players=players,
        seed=seed,
        columns=d.columns,
        removed=d.removed,
        trays=((),) * players,
        boards=tuple(Board(colours) for colours in d.board_colours),
        phase=DRAFTING,
        current=first_seat,
        finished=(False,) * players,
        pending=None,
        drafts=0,
        undo=((),) * players,
        redo=((),) * players,
        strict_finish=bool(strict_finish),
        left=(None,) * players,
        layout=layout,
    )


def auto_finish_actions(state: GameState, seat: int) -> list[Action]:
    """Return the actions that submit a seat's board as it is when the finishing deadline
    passes: return every tile that blocks finishing to the tray, then Finish.

    Returning an illegal tile never makes another illegal, but it can open a path of a tile
    beside it: with the strict-finish option the returns repeat until only closed, legal
    structures remain."""
    actions: list[Action] = []
    board = state.boards[seat]
    while True:
        found = markers(board)
        blockers = found.illegal | found.open_path if state.strict_finish else found.illegal
        if not blockers:
            return [*actions, Finish()]
        spaces = bits(blockers)
        actions += [Return(space) for space in spaces]
        board = board.with_cells(dict.fromkeys(spaces))
