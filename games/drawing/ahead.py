"""The Drafting-ahead panel: a player's queued draft for their next turn, theirs alone
(games/rules/ahead.py says what a queue does; templates/games/partials/draft_ahead.html draws
it)."""

import json
from dataclasses import dataclass, replace

from django.utils.translation import pgettext_lazy

from games import rules
from games.drawing.spaces import TileView, tile_view
from games.models import Game, Seat
from games.rules import ahead


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
    cannot mix their edits). Hashable: its drawing is cached on it (games/drawing/updates.py).
    Nothing in it says the game's version (the page's travels in a header, as its moves' do),
    so that a panel a move did not change is drawn once, not once a version for every player
    (issue 36: a tenth of daphne's CPU in 5-player games); nor how many turns come before theirs,
    which the panel does not say and every turn changed."""

    game_id: int
    # "" nothing to say; "queue" they wait and may queue; "forced" their next turn takes the
    # last tile; "took" the queue drafted for them, to confirm; "none_left" none of it was left.
    mode: str = ""
    column: int | None = None  # the column their next turn draws from (0-based)
    left: int = 0  # the tiles it will hold when that turn begins
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
    base = AheadView(game.pk, error=error)
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
    where = replace(base, column=turn.column, left=turn.left)
    if turn.forced:
        return replace(where, mode="forced")
    column = state.columns[turn.column]
    tiles, confirm = list(queue.tiles), queue.confirm

    def vals(order) -> str:
        return _queue_vals(order, confirm)

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
        tiles_vals=json.dumps({"tiles": _tiles_text(tiles)}),
        clear=vals([]),
    )


def _queue_vals(tiles, confirm: bool) -> str:
    """The hx-vals of a queue to post: its tiles and "confirm it for me" (the page's version
    goes in a header)."""
    return json.dumps({"tiles": _tiles_text(tiles), "confirm": "1" if confirm else ""})


def _swapped(tiles: list[int], a: int, b: int) -> list[int]:
    order = list(tiles)
    order[a], order[b] = order[b], order[a]
    return order


def _tiles_text(tiles) -> str:
    return ",".join(str(tile) for tile in tiles)
