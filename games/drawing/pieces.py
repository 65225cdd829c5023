"""The many small parts of a game's partials, each drawn once per process and reused (their
template tags: games/templatetags/game_parts.py).

Every move draws boards and the pool again, for the mover and for every other open page, and
almost every space and tile looks as it did before (the same tile, the same marker, the same
button). So games/drawing/controls.py works out what each one shows (`SpaceControl`, `TrayControl`,
`PoolControl`), and each is drawn by its own small partial, cached here on that control plus
the colour-blind setting. The key is everything the partial is given, so a cached part can never
show another viewer's controls. No control carries the game's version: the page's version
travels with each request in a header (X-Page-Version, games/static/games/live.js), so a part
drawn for one version serves the next. Nor the game's address: a space's, a tray tile's or a pool
tile's button says none (hx-post="", hx-get=""), the page writes it (live.js), so the same part
serves every game.

A board, a tray and the pool are drawn as pieces (`Piece`): each space, the seat's head, its
tray, its board actions, each column of the pool. Each piece carries an id and its look (a
checksum of its markup, ``data-look``; for a space and a column, of what it is drawn from, so
that it is known before it is drawn: `LaterPiece`), so that a move's answer or a push can send
only the pieces whose look changed (games/drawing/cache/looks.py), swapped by id; the page's
partials join the same pieces, so there is one way to draw each.

Usage (see templates/games/partials/seat.html and pool.html)::

    {% load game_parts %}
    {% game_urls view.game as urls %}          urls.act, urls.fragment, urls.game, urls.log, ...
    {% may_arrange seat as arranging %}        the board and tray are the viewer's to arrange
    {% seat_drawing seat as drawn %}           the seat's pieces: head, rows, tray, actions
    {% pool_drawing as drawn %}                the pool's pieces: title, columns
    {% status_piece %}                         the status, one piece (games/drawing/status.py)
"""

from __future__ import annotations

import functools
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from django.template.loader import get_template, render_to_string
from django.urls import get_script_prefix, reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from games.drawing import controls
from infra.lru import LRU, MIB, memo, text_size
from infra.words import duration_words


class GameUrls(NamedTuple):
    act: str
    fragment: str
    game: str
    log: str
    resign: str
    expel: str


def game_urls(game) -> GameUrls:
    """Return the URLs a game's partials link to: ``{% game_urls view.game as urls %}``. Kept
    per game: reversing an address at every drawing of the status or the move log was about a
    twentieth of a push's CPU (issue 36)."""
    return _game_urls(game.pk, get_script_prefix())


@functools.lru_cache(maxsize=1024)
def _game_urls(game_id: int, prefix: str) -> GameUrls:
    # `prefix` only keys the cache: reverse() reads the script prefix itself.
    return GameUrls(
        *(
            reverse(f"games:{name}", args=[game_id])
            for name in ("act", "fragment", "game", "log", "resign", "expel")
        )
    )


def may_arrange(context, seat) -> bool:
    """Whether the viewer may arrange `seat`'s board now: ``{% may_arrange seat as mine %}``."""
    return controls.arranging(context["view"], seat)


def _colour_blind(context) -> bool:
    return bool(getattr(context.get("user"), "colour_blind", False))


def board_rows(context, seat) -> list[list[str]]:
    """Return the spaces of `seat`'s board as its viewer sees them, drawn, row by row."""
    colour_blind, language = _colour_blind(context), translation.get_language()
    spaces = [
        _space_html(control, colour_blind, language)
        for control in controls.space_controls(context["view"], seat)
    ]
    return [spaces[row : row + 5] for row in range(0, 25, 5)]


def _spaces(context, seat, prefix: str) -> list[LaterPiece]:
    """Each space of `seat`'s board as its viewer sees it: its look now, its markup when a page
    needs it (`LaterPiece`)."""
    colour_blind, language = _colour_blind(context), translation.get_language()
    return [
        LaterPiece(
            f"{prefix}-space-{index}",
            _look_of_key(SPACE_TEMPLATES, (key, colour_blind)),
            functools.partial(_space_drawn, key, colour_blind, language),
            language,
        )
        for index, key in enumerate(controls.space_keys(context["view"], seat))
    ]


def _space_drawn(key: tuple, colour_blind: bool, language: str) -> str:
    return _space_html(controls.space_control(key), colour_blind, language)


def tray_tiles(context, seat) -> list[str]:
    """Return the tiles of `seat`'s tray as its viewer sees them, drawn."""
    colour_blind, language = _colour_blind(context), translation.get_language()
    return [
        _tray_tile_html(control, colour_blind, language)
        for control in controls.tray_controls(context["view"], seat)
    ]


@dataclass(frozen=True, slots=True)
class Piece:
    """One element of a drawing that an answer or a push may swap alone, by its id."""

    id: str
    look: str
    html: SafeString  # the element, with its id and data-look

    def __str__(self) -> str:
        return self.html

    def __html__(self) -> str:  # joined and printed by templates as the markup it is
        return self.html

    @property
    def weight(self) -> int:
        """About the bytes it keeps (infra/lru.py `text_size`)."""
        return text_size(self.html) + 64


# What a piece not drawn yet is taken to weigh in a cache: about its usual markup and more.
SPACE_WEIGHT, COLUMN_WEIGHT = 400, 2000


class LaterPiece:
    """A piece whose look is known before its markup: a digest of what it is drawn from, not of
    the markup. So the pieces a page shows already are never drawn; the markup is made the
    first time something asks for it (a page that lacks it, a whole seat), then kept.

    The spaces of a board and the columns of the pool are such pieces (`_look_of_key`). Issue
    36: a move's answer drew all 25 spaces of the mover's board to learn their looks and sent
    two or three. Each web process keeps its own drawings, and with six of them the process
    that answers a move had seldom drawn that board's tiles before: a tenth of its CPU went to
    drawing spaces that were not sent."""

    __slots__ = ("_draw", "_html", "_language", "_weight", "id", "look")

    def __init__(
        self,
        piece_id: str,
        look: str,
        draw: Callable[[], str],
        language: str,
        weight: int = SPACE_WEIGHT,
    ):
        self.id, self.look, self._draw, self._html = piece_id, look, draw, None
        # Drawn in the language its look was made in, whatever is active when a page asks.
        self._language = language
        self._weight = weight  # what it is taken to weigh in a cache until it is drawn

    @property
    def html(self) -> SafeString:
        if self._html is None:  # two threads may both draw it: the same markup
            with translation.override(self._language):
                self._html = _with_id(self._draw(), self.look, self.id).html
        return self._html

    def __str__(self) -> str:
        return self.html

    def __html__(self) -> str:
        return self.html

    @property
    def weight(self) -> int:
        """About the bytes it keeps, or will once drawn."""
        return self._weight if self._html is None else text_size(self._html) + 64


@dataclass(frozen=True)
class SeatDrawing:
    """A seat's board and tray as its viewer sees them, in pieces (templates/games/partials/
    seat.html joins them). `look` covers what the seat's own tags show (whose board it is):
    when it differs from the page's, the whole seat is drawn again."""

    look: str
    head: Piece
    time: Piece  # the line under the head's name: what changes turn by turn
    score: Piece
    rows: list[list[LaterPiece]]
    tray_title: Piece
    tray: Piece
    # For its owner while they arrange: the board's Undo and Redo (which most arrangements
    # change, alone), its other buttons, and the hint under them.
    history: Piece | None = None
    actions: Piece | None = None
    hint: Piece | None = None

    def pieces(self) -> list[Piece | LaterPiece]:
        spaces = (space for row in self.rows for space in row)
        pieces: list[Piece | LaterPiece] = [self.head, self.time, self.score, *spaces]
        pieces += [self.tray_title, self.tray]
        return pieces + [piece for piece in (self.history, self.actions, self.hint) if piece]


@dataclass(frozen=True)
class PoolDrawing:
    """The pool as its viewer sees it, in pieces (templates/games/partials/pool.html)."""

    look: str
    title: Piece
    columns: list[LaterPiece]
    depth: int = 0  # the tiles a column was dealt (5 or 6): the rows each column keeps

    def pieces(self) -> list[Piece | LaterPiece]:
        return [self.title, *self.columns]


def seat_drawing(context, seat) -> SeatDrawing:
    """Draw `seat` for the viewer in pieces: ``{% seat_drawing seat as drawn %}``."""
    view = context["view"]
    prefix = f"seat-{seat.number}"
    spaces = _spaces(context, seat, prefix)
    arranging = controls.arranging(view, seat)
    parts = {
        "view": view,
        "seat": seat,
        "user": context.get("user"),
        "urls": game_urls(view.game),
        "sel": view.selection,
        "arranging": arranging,
    }
    tiles = tray_tiles(context, seat)
    language = translation.get_language()
    return SeatDrawing(
        look=_look(f"{seat.number} {seat.is_viewer} {seat.user.username} {arranging}"),
        head=seat_head(context, seat),
        time=seat_time(context, seat),
        score=_score_piece(seat.score, prefix, language),
        rows=[spaces[row : row + 5] for row in range(0, 25, 5)],
        tray_title=_tray_title_piece(len(seat.tray), prefix, language),
        tray=_tray_piece(tuple(tiles), prefix, language),
        **(_board_buttons(view, seat, prefix, parts) if arranging else {}),
    )


def _board_buttons(view, seat, prefix: str, parts: dict) -> dict[str, Piece]:
    """The owner's Undo and Redo, other buttons and hint while they arrange, each kept by what
    it shows (issue 36: most answers of the arranging change one of them, or none)."""
    selection = view.selection
    unfitting = selection.tray_tile is not None and view.fits_nowhere
    shows = {
        "history": (seat.can_undo, seat.can_redo),
        "actions": (unfitting, parts["urls"]),
        "hint": (selection.tray_tile is not None, selection.space is not None, unfitting),
    }
    language = translation.get_language()
    return {
        name: _board_pieces.get_or_make(
            (name, prefix, shown, language),
            lambda name=name: make_piece(_render(f"board_{name}", parts), f"{prefix}-{name}"),
        )
        for name, shown in shows.items()
    }


_board_pieces = LRU(2048, max_bytes=2 * MIB, weigh=text_size)


# A seat's score, its tray's title and tiles, and the pool's title are drawn from a few values
# that most moves leave as they were (issue 36: each was a template drawn for every answer and
# push): kept by those values, per language, like the spaces below.
@memo(max_bytes=MIB)
def _score_piece(score, prefix: str, language: str) -> Piece:
    return make_piece(_render("seat_score", {"seat": {"score": score}}), f"{prefix}-score")


@memo(max_bytes=MIB)
def _tray_title_piece(tiles: int, prefix: str, language: str) -> Piece:
    return make_piece(_render("tray_title", {"tiles_in_tray": tiles}), f"{prefix}-tray-title")


@memo(max_bytes=2 * MIB)
def _tray_piece(tiles: tuple[str, ...], prefix: str, language: str) -> Piece:
    return make_piece(_render("tray_list", {"tiles": tiles}), f"{prefix}-tray-tiles")


@memo(max_bytes=MIB)
def _pool_title_piece(has_draw_column: bool, language: str) -> Piece:
    return make_piece(_render("pool_title", {"has_draw_column": has_draw_column}), "pool-title")


def seat_head(context, seat) -> Piece:
    """The name line of `seat`'s head: whose board, their dot, what changes rarely. Kept by all
    it shows (`_head_key`): each answer and push drew every head of the table (issue 36)."""
    key = (_head_key(seat), translation.get_language())
    return _heads.get_or_make(
        key, lambda: make_piece(_render("seat_head", {"seat": seat}), f"seat-{seat.number}-head")
    )


def seat_time(context, seat) -> Piece:
    """The line under `seat`'s name: the turn's marker, the clock, another player's score and
    tray count; a turn passing changes two of these lines and no head (issue 36: the heads
    were most of a draft's push). Kept by all it shows (`_time_key`)."""
    key = (_time_key(seat), translation.get_language())
    return _heads.get_or_make(
        key, lambda: make_piece(_render("seat_time", {"seat": seat}), f"seat-{seat.number}-time")
    )


_heads = LRU(4096, max_bytes=4 * MIB, weigh=text_size)


def _head_key(seat) -> tuple:
    """Everything templates/games/partials/seat_head.html shows of `seat` (with the partials it
    includes: presence, and the viewer's own turn marker), and nothing else."""
    user = seat.user
    own_markers = (seat.is_current, seat.seat.finished) if seat.is_viewer else None
    return (
        "head",
        seat.number,
        seat.is_viewer,
        seat.online,
        user.username,
        badge_key(user),
        seat.left,
        seat.seat.timeouts,
        own_markers,
    )


def badge_key(user) -> tuple:
    """What the bot badge beside `user`'s name shows of them (player_tags `bot_badge`): their
    computer player's level, or that a program plays the account."""
    return (getattr(user, "bot_level", None), bool(getattr(user, "bot_owner_id", None)))


def clock_key(clock) -> tuple:
    """Everything templates/games/partials/clock.html shows of `clock`: the time left as its
    words say it, not to the second."""
    return (
        clock.running,
        clock.deadline,
        clock.pauses,
        clock.stopped_for,
        duration_words(clock.left),
    )


def _time_key(seat) -> tuple:
    """Everything templates/games/partials/seat_time.html shows of `seat` (with the partials it
    includes: seat_markers, clock), and nothing else: the clock's time left as its words say
    it, not to the second."""
    clock = clock_key(seat.clock) if seat.clock is not None else None
    if seat.is_viewer:
        return ("time", seat.number, True, clock)
    return (
        "time",
        seat.number,
        False,
        clock,
        seat.is_current,
        seat.seat.finished,
        seat.vacation_until,
        seat.score.score,
        len(seat.tray),
    )


def pool_drawing(context) -> PoolDrawing:
    """Draw the pool for the viewer in pieces: ``{% pool_drawing as drawn %}``. Each column is
    a `LaterPiece`: its look is known from what it shows, its markup drawn when a page needs
    it."""
    view = context["view"]
    next_draw = view.next_draw_column
    colour_blind, language = _colour_blind(context), translation.get_language()
    depth, rows = view.pool_depth, view.pool_rows
    columns = []
    for draw, column in enumerate(controls.pool_controls(view)):
        key = (
            tuple(column),
            rows[draw] if draw < len(rows) else (),
            depth,
            draw,
            draw == view.draw_column,
            draw == next_draw,
            colour_blind,
            language,
        )
        columns.append(
            LaterPiece(
                f"pool-column-{draw}",
                _look_of_key(POOL_COLUMN_TEMPLATES, key),
                functools.partial(_pool_column_html, key),
                language,
                weight=COLUMN_WEIGHT,
            )
        )
    return PoolDrawing(
        look=_look(f"{len(columns)} {depth}"),
        title=_pool_title_piece(view.draw_column is not None, language),
        columns=columns,
        depth=depth,
    )


# The place of a tile taken from a column, kept empty: the tiles under it stay where they were
# dealt (a column does not slide up as it empties), and a finger or a pointer aimed at one
# finds it there. A column with no tile left has none: it is drawn empty.
TAKEN = mark_safe('<li class="tile-box taken" aria-hidden="true"></li>')


def _in_rows(tiles: list[str], rows: tuple[int, ...], depth: int) -> tuple[str, ...]:
    """A column's drawn tiles in the rows they were dealt into, the rows of taken tiles kept
    (a view that does not know them, one after the other)."""
    if not tiles:
        return ()
    if len(rows) != len(tiles):
        return tuple(tiles)
    slots = [TAKEN] * max(depth, rows[-1] + 1)
    for row, tile in zip(rows, tiles, strict=True):
        slots[row] = tile
    return tuple(slots)


def _render(name: str, context: dict) -> str:
    return render_to_string(f"games/partials/{name}.html", context)


def _look(html: str) -> str:
    """A short checksum of a piece's markup: the same drawing has the same look everywhere."""
    return format(zlib.crc32(html.encode()), "08x")


_OPENING = re.compile(r"\s*(?:\{#.*?#\}\s*)*<([a-z0-9]+)", re.S)


def make_piece(html: str, piece_id: str) -> Piece:
    html = html.strip()
    return _with_id(html, _look(html), piece_id)


def _with_id(html: str, look: str, piece_id: str) -> Piece:
    """`html`, one element drawn without an id (so shared by every board), given its id here."""
    opening = _OPENING.match(html)
    at = opening.end()
    tagged = f'{html[: opening.start(1) - 1]}<{opening.group(1)} id="{piece_id}" data-look="{look}"'
    return Piece(piece_id, look, mark_safe(tagged + html[at:]))


def action_json(action: str, fields=()) -> SafeString:
    """The hx-vals of a game action (also games.templatetags.game_extras.action_vals'): without
    the version, which the page sends in a header. Compact, for an attribute in single quotes
    (``hx-vals='{"type":"undo"}'``): its double quotes stay as they are, instead of six bytes
    each."""
    text = json.dumps({"type": action, **dict(fields)}, separators=(",", ":"))
    return mark_safe(text.translate(_IN_SINGLE_QUOTES))


# What may not stand for itself in an attribute in single quotes.
_IN_SINGLE_QUOTES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#x27;"})


# A board's 25 spaces are most of a page's markup and nearly all of them are drawn the same way
# move after move; sized for a few hundred boards being played at once in one process, bounded
# by bytes so that a process that runs for weeks reaches its ceiling early (infra/lru.py).
# Each of these caches is keyed by the language too (`language`, the active one, in which the
# part is drawn): a part drawn in German is never served to an English reader.
@memo(max_bytes=12 * MIB)
def _space_html(control, colour_blind, language) -> str:
    context = {"space": control, "colour_blind": colour_blind}
    if control.vals:
        context["vals"] = action_json(control.action, control.vals)
    if control.menu:
        space = (("space", control.index),)
        context["menu"] = {
            "anticlockwise": action_json("rotate", (*space, ("quarter_turns", 3))),
            "clockwise": action_json("rotate", (*space, ("quarter_turns", 1))),
            "back": action_json("return", space),
        }
    return render_to_string("games/partials/space.html", context).strip()


SPACE_TEMPLATES = (
    "games/partials/space.html",
    "games/partials/tile_menu.html",
    "games/svg/tile.html",
    "games/svg/space.html",
)
POOL_COLUMN_TEMPLATES = (
    "games/partials/pool_column.html",
    "games/partials/pool_tile.html",
    "games/svg/tile.html",
)


@memo(max_bytes=2 * MIB)
def _look_of_key(templates: tuple[str, ...], key: tuple) -> str:
    """The look of a `LaterPiece` drawn by `templates` from `key` (everything it is drawn from,
    the language and the colour-blind setting among them), without drawing it: the same in
    every process of the site (a page's looks come back to whichever process draws its next
    answer or push), and another when those templates change, so that a page drawn before an
    upgrade gets every such piece anew."""
    return _look(f"{_templates_look(templates)} {key!r}")


@functools.cache
def _templates_look(names: tuple[str, ...]) -> str:
    """A checksum of the templates `names`."""
    return _look("".join(get_template(name).template.source for name in names))


@memo(max_bytes=3 * MIB)
def _tray_tile_html(control, colour_blind, language):
    context = {"tray_tile": control, "colour_blind": colour_blind}
    return mark_safe(render_to_string("games/partials/tray_tile.html", context).strip())


# A draft changes one or two of the pool's columns: the others keep their looks and are not
# drawn again (`pool_drawing`). Kept by what a column shows (`pool_drawing`'s key).
@memo(max_bytes=3 * MIB)
def _pool_column_html(key: tuple) -> str:
    column, rows, depth, draw, drawn_from, next_draw, colour_blind, language = key
    tiles = [_pool_tile_html(control, colour_blind, language) for control in column]
    context = {
        "tiles": _in_rows(tiles, rows, depth),
        "draw": draw,
        "drawn_from": drawn_from,
        "next": next_draw,
    }
    return _render("pool_column", context).strip()


@memo(max_bytes=3 * MIB)
def _pool_tile_html(control, colour_blind, language):
    context = {"pool_tile": control, "colour_blind": colour_blind}
    if control.draftable:
        context["vals"] = action_json("draft", (("tile_id", control.tile.id),))
    return render_to_string("games/partials/pool_tile.html", context)
