"""The deal and the seat order: all the chance in a game, from its seed.

Two independent streams of the one seed, so that neither tells anything about the other:

- the deal, from `random.Random(seed)`, in this order: shuffle the 60 tile ids; with 2 players
  the first 10 of the shuffle go back to the box; the rest fill the columns left to right, each
  top to bottom; then one board per seat, seat 0 first;
- the seat order (who sits where, so who drafts first), from `random.Random(f"seats {seed}")`.

The platform draws the seed (games/play/actions/tables.py) and keeps it with the game, so both
can be drawn again from it.

A deal has a layout: the standard one of the rules (RULES.md "Set-up"), or the short one of the
guided first game (games/first_visit/tutorial.py): the same draw, with fewer tiles in the pool
(two columns of four a player, so eight drafts each; the rest of the shuffle goes back to the
box), so a first game is over in minutes. The layout is kept with the game, as the seed is.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import BadSetup
from .i18n import gettext_noop
from .tiles import COLOURS, TILE_COUNT, TILES, Colour

#: players -> (tiles removed, columns, tiles per column, tiles each player drafts)
LAYOUTS: dict[int, tuple[int, int, int, int]] = {
    2: (10, 10, 5, 25),
    3: (0, 12, 5, 20),
    4: (0, 12, 5, 15),
    5: (0, 10, 6, 12),
}
MIN_PLAYERS, MAX_PLAYERS = 2, 5
#: The layouts' names: the rules' own, and the guided game's short one.
STANDARD, SHORT = "standard", "short"
#: The short layout: two columns of four tiles a player, so that every player drafts eight
#: tiles (enough to place, turn, join and close a chip, and to feel what a spare tile costs).
SHORT_LAYOUTS: dict[int, tuple[int, int, int, int]] = {
    players: (TILE_COUNT - 8 * players, 2 * players, 4, 8) for players in LAYOUTS
}
_BY_NAME = {STANDARD: LAYOUTS, SHORT: SHORT_LAYOUTS}
LAYOUT_NAMES = tuple(_BY_NAME)


def check_setup(players: object, seed: object, layout: object = STANDARD) -> None:
    """Raise BadSetup unless players is 2..5, seed an int and layout one of LAYOUT_NAMES."""
    if not isinstance(players, int) or isinstance(players, bool) or players not in LAYOUTS:
        raise BadSetup(gettext_noop("A game needs 2, 3, 4 or 5 players."))
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise BadSetup(gettext_noop("The seed must be a whole number."))
    if not isinstance(layout, str) or layout not in _BY_NAME:
        raise BadSetup(gettext_noop("There is no such layout of the pool."))


def layout_of(players: int, layout: str = STANDARD) -> tuple[int, int, int, int]:
    """(tiles removed, columns, tiles per column, tiles each player drafts) of a deal."""
    return _BY_NAME[layout][players]


def drafts_per_player(players: int, layout: str = STANDARD) -> int:
    return layout_of(players, layout)[3]


def make_board_colours(
    rng: random.Random, existing: Sequence[tuple[Colour, ...]]
) -> tuple[Colour, ...]:
    """Return one board's 25 space colours, row by row, unequal to every board in `existing`.

    The method (RULES.md "Boards"): a bag of 5 tokens of each colour, drawn one by one onto the
    spaces row by row, i.e. a uniformly random layout with each colour exactly 5 times; drawn
    again while it equals another player's board. This is the one function to replace when the
    published method is known; it must use only `rng` for chance.
    """
    bag = [colour for colour in COLOURS for _ in range(5)]
    while True:
        rng.shuffle(bag)
        board = tuple(bag)
        if board not in existing:
            return board


@dataclass(frozen=True)
class Deal:
    players: int
    seed: int
    columns: tuple[tuple[int, ...], ...]
    removed: tuple[int, ...]
    board_colours: tuple[tuple[Colour, ...], ...]
    layout: str = STANDARD

    def to_json(self) -> dict:
        return {
            "players": self.players,
            "seed": self.seed,
            "layout": self.layout,
            "columns": [[TILES[t].to_json() for t in col] for col in self.columns],
            "removed": [TILES[t].to_json() for t in self.removed],
            "boards": [
                [[c.value for c in colours[r * 5 : r * 5 + 5]] for r in range(5)]
                for colours in self.board_colours
            ],
        }


def seat_order(players: int, seed: int) -> tuple[int, ...]:
    """Return who sits where: item i is the index, in join order, of the player who takes seat i
    (seat 0 drafts first). A uniform draw from a stream of the seed that the deal does not
    use."""
    check_setup(players, seed)
    order = list(range(players))
    random.Random(f"seats {seed}").shuffle(order)
    return tuple(order)


def deal(players: int, seed: int, layout: str = STANDARD) -> Deal:
    """Return the deal for a game of `players` players with this seed and layout (always the
    same)."""
    check_setup(players, seed, layout)
    removed_count, column_count, per_column, _ = layout_of(players, layout)
    rng = random.Random(seed)
    ids = list(range(TILE_COUNT))
    rng.shuffle(ids)
    removed = tuple(sorted(ids[:removed_count]))
    pool = ids[removed_count:]
    columns = tuple(tuple(pool[c * per_column : (c + 1) * per_column]) for c in range(column_count))
    boards: list[tuple[Colour, ...]] = []
    for _ in range(players):
        boards.append(make_board_colours(rng, boards))
    return Deal(players, seed, columns, removed, tuple(boards), layout)


@functools.lru_cache(maxsize=512)
def dealt_places(players: int, seed: int, layout: str = STANDARD) -> dict[int, tuple[int, int]]:
    """Return the (column, row) each tile of the pool was dealt into, by tile id, the row 0 at
    the top: where the tile stays drawn while the tiles above it are taken."""
    return {
        tile: (number, row)
        for number, column in enumerate(deal(players, seed, layout).columns)
        for row, tile in enumerate(column)
    }
