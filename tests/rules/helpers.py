"""Helpers for the rules tests: small boards from text, a naive reference scorer, playouts."""

from __future__ import annotations

import random
from collections import deque

from games.rules import Board, Colour, GameState, Kind, Placed
from games.rules.tiles import OPPOSITE, SIDES, TILES, letters_to_paths, rotation_for

B, R, G, Y, P = Colour.BLUE, Colour.RED, Colour.GREEN, Colour.YELLOW, Colour.PINK
#: A valid board layout (each colour 5 times): row r is the colours shifted by r.
LATIN = tuple(tuple(Colour)[(r + c) % 5] for r in range(5) for c in range(5))
KIND_OF = {"end": Kind.END, "straight": Kind.STRAIGHT, "corner": Kind.CORNER, "tee": Kind.TEE,
           "cross": Kind.CROSS}  # fmt: skip


def tile_id(kind: Kind, colour: Colour, nth: int = 0) -> int:
    """Return a tile id of this kind and colour (the nth, cycling: analysis-only boards may
    repeat an id, which the masks do not care about)."""
    ids = [t.id for t in TILES if t.kind == kind and t.colour == colour]
    return ids[nth % len(ids)]


def board(cells: dict[int, str], colours=LATIN, colour_of: dict[int, Colour] | None = None):
    """Return a board from {space: "kind:PATHS"}, each tile the colour of its space unless
    `colour_of` says otherwise. Example: {0: "end:E", 1: "end:W"}."""
    placed: list[Placed | None] = [None] * 25
    used: dict[tuple, int] = {}
    for space, spec in cells.items():
        kind_name, letters = spec.split(":")
        kind = KIND_OF[kind_name]
        colour = (colour_of or {}).get(space, colours[space])
        key = (kind, colour)
        nth = used.get(key, 0)
        used[key] = nth + 1
        rotation = rotation_for(kind, letters_to_paths(letters))
        assert rotation is not None, spec
        placed[space] = Placed(tile_id(kind, colour, nth), rotation)
    return Board(colours, placed)


# --- a deliberately naive reference ------------------------------------------------------------

STEP = {1: (-1, 0), 2: (0, 1), 4: (1, 0), 8: (0, -1)}


def ref_paths(b: Board) -> dict[tuple[int, int], int]:
    return {divmod(i, 5): c.paths for i, c in enumerate(b.cells) if c is not None}


def ref_score(b: Board, tray: int) -> tuple[int, int, int]:
    """Return (score, chip_tiles, chip_value) by the words of the rules, the slow way."""
    tiles = ref_paths(b)

    def joined(a, side):
        dr, dc = STEP[side]
        other = (a[0] + dr, a[1] + dc)
        return other if other in tiles and tiles[other] & OPPOSITE[side] else None

    seen, chips = set(), []
    for start in tiles:
        if start in seen:
            continue
        comp, queue = {start}, deque([start])
        while queue:
            a = queue.popleft()
            for side in SIDES:
                if tiles[a] & side:
                    other = joined(a, side)
                    if other is not None and other not in comp:
                        comp.add(other)
                        queue.append(other)
        seen |= comp
        closed = all(joined(a, side) for a in comp for side in SIDES if tiles[a] & side)
        if closed:
            value = sum(bin(tiles[a]).count("1") for a in comp)
            chips.append((len(comp), value))
    size, value = max(chips, default=(0, 0))
    owned = len(tiles) + tray
    return value - 2 * (owned - size), size, value


def ref_statuses(b: Board) -> list[str | None]:
    """Return per space None / "ok" / "warning" / "illegal" by the words of the rules."""
    tiles = ref_paths(b)
    out = []
    for i in range(25):
        if b.cells[i] is None:
            out.append(None)
            continue
        r, c = divmod(i, 5)
        illegal = TILES[b.cells[i].tile].colour != b.colours[i]
        warning = False
        for side in SIDES:
            dr, dc = STEP[side]
            other = (r + dr, c + dc)
            has = bool(tiles[(r, c)] & side)
            if not (0 <= other[0] < 5 and 0 <= other[1] < 5):
                illegal |= has
            elif other in tiles:
                illegal |= has != bool(tiles[other] & OPPOSITE[side])
            else:
                warning |= has
        out.append("illegal" if illegal else "warning" if warning else "ok")
    return out


def ref_sides(b: Board) -> dict[int, tuple[int, int, int]]:
    """Return per placed tile its (off board, mismatch, open) side masks by the words of the
    rules: a path past the edge; a side unlike the touching tile's facing side; a path toward
    an empty space."""
    tiles = ref_paths(b)
    out = {}
    for (r, c), paths in tiles.items():
        off = mismatch = opened = 0
        for side in SIDES:
            dr, dc = STEP[side]
            other = (r + dr, c + dc)
            has = bool(paths & side)
            if not (0 <= other[0] < 5 and 0 <= other[1] < 5):
                off |= side if has else 0
            elif other in tiles:
                mismatch |= side if has != bool(tiles[other] & OPPOSITE[side]) else 0
            else:
                opened |= side if has else 0
        out[r * 5 + c] = (off, mismatch, opened)
    return out


# --- game helpers ------------------------------------------------------------------------------


def where_is(state: GameState) -> dict[int, str]:
    """Return, for every tile, the one place it is in; fail if a tile is in two places."""
    places: dict[int, str] = {}

    def put(tile, place):
        assert tile not in places, f"tile {tile} in {places[tile]} and {place}"
        places[tile] = place

    for t in state.removed:
        put(t, "box")
    for c, col in enumerate(state.columns):
        for t in col:
            put(t, f"column {c}")
    for seat in range(state.players):
        for t in state.trays[seat]:
            put(t, f"tray {seat}")
        for t in state.boards[seat].tiles():
            put(t, f"board {seat}")
    return places


def random_arranging(state: GameState, seat: int, rng: random.Random):
    """Return a random arranging action that `seat` may apply now (None if none)."""
    if not state.can_arrange(seat):
        return None
    from games.rules import Clear, Move, Place, Return, Rotate, Swap

    b = state.boards[seat]
    occupied = [i for i in range(25) if b.cells[i] is not None]
    empty = [i for i in range(25) if b.cells[i] is None]
    tray = state.trays[seat]
    options = []
    if tray and empty:
        options += ["place"] * 4
    if occupied:
        options += ["rotate", "return", "move" if empty else "return"]
        if len(occupied) > 1:
            options.append("swap")
        if rng.random() < 0.1:
            options.append("clear")
    if not options:
        return None
    kind = rng.choice(options)
    if kind == "place":
        return Place(rng.choice(tray), rng.choice(empty), rng.randrange(4))
    if kind == "rotate":
        return Rotate(rng.choice(occupied), rng.randint(1, 3))
    if kind == "return":
        return Return(rng.choice(occupied))
    if kind == "move":
        return Move(rng.choice(occupied), rng.choice(empty))
    if kind == "swap":
        a, b2 = rng.sample(occupied, 2)
        return Swap(a, b2)
    return Clear()


def play_randomly(state: GameState, rng: random.Random, arrange_steps: int = 2, check=None):
    """Play to the end with random players (drafts, undos, forced takes, arranging by anyone);
    return (final state, events). `check(state)` is called after every action if given."""
    from games.rules import Clear, Finish

    events = []

    def do(action, seat):
        nonlocal state
        state = state.apply(action, seat)
        events.append((seat, action))
        if check is not None:
            check(state)

    while not state.is_terminal():
        for _ in range(rng.randrange(arrange_steps + 1)):
            s2 = rng.randrange(state.players)
            a = random_arranging(state, s2, rng)
            if a is not None:
                do(a, s2)
        if state.phase == "drafting":
            seat = state.current
            actions = state.legal_actions(seat, arranging=False)
            # Undo sometimes, but not forever.
            if len(actions) == 2 and rng.random() < 0.7:
                actions = actions[:1]
            do(rng.choice(actions), seat)
        else:
            seat = rng.choice([s for s in range(state.players) if not state.finished[s]])
            if Finish() not in state.legal_actions(seat, arranging=False):
                do(Clear(), seat)
            if rng.random() < 0.6:
                do(Finish(), seat)
    return state, events
