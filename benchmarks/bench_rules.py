"""Measure the engine: boards scored per second and whole simulated games per second.

    python -m benchmarks rules [--boards 50000] [--games 20] [--players 5] [--seed 0]

The boards are distinct random arrangements of 12 to 25 tiles, made before the clock starts:
mostly tiles of the space's colour turned to agree with the tiles already around them (so many
boards hold closed structures), with some random turns and colours mixed in (illegal tiles).
Each board is scored once, by `analysis.score`, the function `GameState.results` uses; one
process, one core. The other figures also count building the board's masks from its cells (as
when a saved state is loaded) and the per-space markers.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from typing import TextIO

from benchmarks.simulate import play_game
from games.rules import cli
from games.rules.analysis import EDGE_SIDES, diagnose, score
from games.rules.board import Board, Placed
from games.rules.deal import make_board_colours
from games.rules.tiles import COLOURS, TILE_COLOUR, TILE_PATHS

_BY_COLOUR = {c: [t for t in range(60) if TILE_COLOUR[t] is c] for c in COLOURS}


def random_board(rng: random.Random) -> tuple[Board, int]:
    """Return a random legal-ish board and a tray size (owned tiles = placed + tray)."""
    colours = make_board_colours(rng, ())
    count = rng.randint(12, 25)
    spaces = rng.sample(range(25), count)
    pools = {c: rng.sample(ids, len(ids)) for c, ids in _BY_COLOUR.items()}
    paths = [-1] * 25  # -1 = empty, else path mask
    cells: list[Placed | None] = [None] * 25
    for space in spaces:
        colour = colours[space]
        if rng.random() < 0.05:
            colour = rng.choice(COLOURS)
        pool = pools[colour] or pools[rng.choice([c for c in COLOURS if pools[c]])]
        tile = pool.pop()
        table = TILE_PATHS[tile]
        r0 = rng.randrange(4)
        rotation = r0
        if rng.random() < 0.9:
            for k in range(4):
                r = (r0 + k) & 3
                if _agrees(paths, space, table[r]):
                    rotation = r
                    break
        paths[space] = table[rotation]
        cells[space] = Placed(tile, rotation)
    tray = rng.randint(0, 25 - count)
    return Board(colours, cells), tray


def _agrees(paths: list[int], space: int, p: int) -> bool:
    if p & EDGE_SIDES[space]:
        return False
    row, col = divmod(space, 5)
    if row and paths[space - 5] >= 0 and bool(paths[space - 5] & 4) != bool(p & 1):
        return False
    if row < 4 and paths[space + 5] >= 0 and bool(paths[space + 5] & 1) != bool(p & 4):
        return False
    if col and paths[space - 1] >= 0 and bool(paths[space - 1] & 2) != bool(p & 8):
        return False
    return not (col < 4 and paths[space + 1] >= 0 and bool(paths[space + 1] & 8) != bool(p & 2))


def make_boards(count: int, seed: int = 0) -> list[tuple[Board, int]]:
    """Return `count` distinct random boards with tray sizes."""
    rng = random.Random(seed)
    seen: set = set()
    out = []
    while len(out) < count:
        board, tray = random_board(rng)
        if board.cells in seen:
            continue
        seen.add(board.cells)
        out.append((board, tray))
    return out


def bench_scoring(boards: list[tuple[Board, int]]) -> float:
    """Return boards scored per second: each board scored once by `score`."""
    start = time.perf_counter()
    for board, tray in boards:
        score(board, tray)
    return len(boards) / (time.perf_counter() - start)


def bench_built_and_scored(boards: list[tuple[Board, int]], diagnosed: bool = False) -> float:
    """Return boards per second for building each board from its cells (as when loading a saved
    state) and scoring it, and also computing every space's markers if `diagnosed`."""
    cells = [(b.colours, b.cells, tray) for b, tray in boards]
    start = time.perf_counter()
    for colours, c, tray in cells:
        board = Board(colours, c)
        if diagnosed:
            diagnose(board)
        score(board, tray)
    return len(cells) / (time.perf_counter() - start)


def bench_games(players: int, games: int, seed: int = 0) -> tuple[float, float]:
    """Return (games per second, slowest game in seconds) for simulated games."""
    slowest = 0.0
    start = time.perf_counter()
    for k in range(games):
        t0 = time.perf_counter()
        play_game(players, seed + k)
        slowest = max(slowest, time.perf_counter() - t0)
    return games / (time.perf_counter() - start), slowest


def run(boards: int = 50_000, games: int = 20, players: int = 5, seed: int = 0) -> dict:
    made = make_boards(boards, seed)
    closed = sum(1 for b, t in made if score(b, t).chip_tiles)
    per_second = bench_scoring(made)
    some = made[: max(1, boards // 5)]
    built = bench_built_and_scored(some)
    full = bench_built_and_scored(some, diagnosed=True)
    games_per_second, slowest = bench_games(players, games, seed)
    return {
        "boards": boards,
        "boards_with_a_chip": closed,
        "boards_scored_per_second": round(per_second),
        "boards_built_and_scored_per_second": round(built),
        "boards_built_diagnosed_and_scored_per_second": round(full),
        "players": players,
        "games": games,
        "games_per_second": round(games_per_second, 2),
        "slowest_game_seconds": round(slowest, 4),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks rules",
        description="Measure boards scored and games played per second; JSON out.",
    )
    parser.add_argument("--boards", type=int, default=50_000)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=5, choices=range(2, 6), metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=_command)
    return parser


def _command(args: argparse.Namespace, stdin: TextIO) -> dict:
    if args.boards < 1 or args.games < 1:
        raise cli.InputError("--boards and --games must be at least 1")
    return run(boards=args.boards, games=args.games, players=args.players, seed=args.seed)


def main(argv: Sequence[str] | None = None, **streams: TextIO) -> int:
    """`python -m benchmarks rules`; return the exit status (2 for bad input)."""
    return cli.run(build_parser(), argv, **streams)
