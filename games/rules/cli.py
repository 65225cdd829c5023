"""The rules' command line: `python -m games.rules {score,best,deal}`, JSON in and out.

Errors print one clear line on standard error and exit with status 2 (argparse's usage errors
also exit 2); there is never a traceback for bad input. `run` is that behaviour for any parser
whose sub-commands return JSON: the simulations and benchmarks of the rules
(`python -m benchmarks simulate|rules|duel`) use it too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from games.rules.analysis import diagnose, legal_spots, markers, score, structures
from games.rules.board import Board, Placed, bits
from games.rules.deal import deal
from games.rules.errors import RuleError
from games.rules.tiles import (
    COLOURS,
    KIND_PATHS,
    KINDS,
    TILES,
    Colour,
    Kind,
    letters_to_paths,
    paths_to_letters,
    rotation_for,
)


class InputError(Exception):
    """Bad input for a sub-command; the message is shown to the user."""


def _colour(name: Any, where: str) -> Colour:
    try:
        return Colour(name)
    except ValueError:
        known = ", ".join(c.value for c in COLOURS)
        raise InputError(f"{where}: unknown colour {name!r} (colours are {known})") from None


def _kind(name: Any, where: str) -> Kind:
    try:
        return Kind(name)
    except ValueError:
        known = ", ".join(k.value for k in KINDS)
        raise InputError(f"{where}: unknown kind {name!r} (kinds are {known})") from None


def _grid(data: dict, key: str) -> list[list]:
    grid = data.get(key)
    if not isinstance(grid, list) or len(grid) != 5:
        raise InputError(f'"{key}" must be a list of 5 rows')
    for r, row in enumerate(grid):
        if not isinstance(row, list) or len(row) != 5:
            raise InputError(f'"{key}" row {r} must be a list of 5 entries')
    return grid


def parse_board(data: object) -> tuple[Board, list[int]]:
    """Return the board and tray tile ids described by a `score` input document.

    Tiles come by kind and colour; each gets the next unused tile id of that kind and colour,
    so a board can hold at most as many of a kind and colour as the game has.
    """
    if not isinstance(data, dict):
        raise InputError("the input must be a JSON object with colours, cells and tray")
    unknown = set(data) - {"colours", "cells", "tray"}
    if unknown:
        raise InputError(f"unknown field(s): {', '.join(sorted(unknown))}")
    colours = [
        _colour(name, f"colours row {r} column {c}")
        for r, row in enumerate(_grid(data, "colours"))
        for c, name in enumerate(row)
    ]
    free: dict[tuple[Kind, Colour], list[int]] = {}
    for tile in reversed(TILES):
        free.setdefault((tile.kind, tile.colour), []).append(tile.id)

    def take(spec: object, where: str, placed: bool) -> tuple[int, int]:
        allowed = {"kind", "colour", "paths"} if placed else {"kind", "colour"}
        if not isinstance(spec, dict):
            raise InputError(f"{where}: a tile must be an object with kind and colour")
        extra = set(spec) - allowed
        if extra:
            raise InputError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        if "kind" not in spec or "colour" not in spec:
            raise InputError(f"{where}: a tile needs a kind and a colour")
        kind = _kind(spec["kind"], where)
        colour = _colour(spec["colour"], where)
        rotation = 0
        if placed:
            if "paths" not in spec:
                raise InputError(f'{where}: a placed tile needs its paths, e.g. "NES"')
            try:
                mask = letters_to_paths(spec["paths"])
            except ValueError as exc:
                raise InputError(f"{where}: {exc}") from None
            found = rotation_for(kind, mask)
            if found is None:
                shapes = sorted({paths_to_letters(p) for p in KIND_PATHS[kind]})
                raise InputError(
                    f"{where}: paths {spec['paths']!r} are not a rotation of a {kind.value} "
                    f"(one of {', '.join(shapes)})"
                )
            rotation = found
        ids = free[(kind, colour)]
        if not ids:
            raise InputError(f"{where}: the game has no more {colour.value} {kind.value} tiles")
        return ids.pop(), rotation

    cells: list[Placed | None] = []
    for r, row in enumerate(_grid(data, "cells")):
        for c, spec in enumerate(row):
            if spec is None:
                cells.append(None)
            else:
                cells.append(Placed(*take(spec, f"cells row {r} column {c}", True)))
    tray_specs = data.get("tray", [])
    if not isinstance(tray_specs, list):
        raise InputError('"tray" must be a list of tiles')
    tray = [take(spec, f"tray tile {i}", False)[0] for i, spec in enumerate(tray_specs)]
    return Board(colours, cells), tray


def analyse(board: Board, tray: list[int]) -> dict:
    """Return the `score` output for a board and its owner's tray."""
    result = score(board, len(tray))
    statuses = diagnose(board)
    m = markers(board)

    def tile_json(tile: int) -> dict:
        return {"kind": TILES[tile].kind.value, "colour": TILES[tile].colour.value}

    spaces = []
    for r in range(5):
        row: list[dict | None] = []
        for c in range(5):
            i = r * 5 + c
            cell, status = board.cells[i], statuses[i]
            if cell is None or status is None:  # diagnose gives a status to every tile
                row.append(None)
            else:
                row.append(
                    {
                        **tile_json(cell.tile),
                        "paths": paths_to_letters(cell.paths),
                        "in_chip": bool(result.chip_mask >> i & 1),
                        **status.to_json(),
                    }
                )
        spaces.append(row)
    return {
        "score": result.score,
        "chip_tiles": result.chip_tiles,
        "chip_value": result.chip_value,
        "penalty_tiles": result.penalty_tiles,
        "owned_tiles": board.tile_count + len(tray),
        "can_finish": m.illegal == 0,
        "illegal_spaces": bits(m.illegal),
        "warning_spaces": bits(m.warning),
        "chip_spaces": bits(result.chip_mask),
        "structures": [s.to_json() for s in structures(board)],
        "spaces": spaces,
        "tray": [
            {
                **tile_json(tile),
                "legal_spots": [
                    _spot(s, TILES[tile].paths(rot)) for s, rot in legal_spots(board, tile)
                ],
            }
            for tile in tray
        ],
    }


def _spot(space: int, paths: int) -> dict:
    return {"space": space, "row": space // 5, "col": space % 5, "paths": paths_to_letters(paths)}


def _read_json(stdin: TextIO) -> object:
    try:
        text = stdin.read()
    except UnicodeDecodeError:
        raise InputError("the input is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the input is not valid JSON: {exc}") from None


def cmd_score(args: argparse.Namespace, stdin: TextIO) -> dict:
    board, tray = parse_board(_read_json(stdin))
    return analyse(board, tray)


def cmd_best(args: argparse.Namespace, stdin: TextIO) -> dict:
    """The best arrangement of the tray's tiles (and any placed ones) on the colours."""
    from games.rules.solver import best_arrangement

    if args.time_limit is not None and not args.time_limit > 0:
        raise InputError("--time-limit must be a positive number of seconds")
    data = _read_json(stdin)
    if isinstance(data, dict) and "cells" not in data:
        data = {**data, "cells": [[None] * 5 for _ in range(5)]}
    board, tray = parse_board(data)
    result = best_arrangement(board.colours, board.tiles() + tray, time_limit=args.time_limit)

    def tile_json(tile: int) -> dict:
        return {"kind": TILES[tile].kind.value, "colour": TILES[tile].colour.value}

    def cell_json(cell: Placed | None) -> dict | None:
        if cell is None:
            return None
        return {**tile_json(cell.tile), "paths": paths_to_letters(cell.paths)}

    cells = [[cell_json(cell) for cell in result.board.cells[r * 5 : r * 5 + 5]] for r in range(5)]
    return {
        "score": result.score,
        "cells": cells,
        "optimal": result.optimal,
        "seconds": round(result.seconds, 4),
        "chip_tiles": len(result.tiles_used),
        "chip_value": result.chip_value,
        "tray": [tile_json(t) for t in result.tray],
        "nodes": result.nodes,
    }


def cmd_deal(args: argparse.Namespace, stdin: TextIO) -> dict:
    return deal(args.players, args.seed).to_json()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m games.rules", description="The Microchip rules engine, JSON in and out."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("score", help="analyse one board read as JSON from standard input")
    p.set_defaults(func=cmd_score)
    p = sub.add_parser(
        "best", help="the best arrangement of a tray on a board's colours (proved optimal)"
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop after this many seconds with the best board found so far",
    )
    p.set_defaults(func=cmd_best)
    p = sub.add_parser("deal", help="print the pool, removed tiles and boards of a deal")
    p.add_argument("--players", type=int, required=True, choices=range(2, 6), metavar="N")
    p.add_argument("--seed", type=int, required=True, metavar="S")
    p.set_defaults(func=cmd_deal)
    return parser


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the rules' command line; return the exit status."""
    return run(build_parser(), argv, stdin, stdout, stderr)


def run(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Parse `argv` with `parser`, call the chosen `func(args, stdin)` and print the JSON it
    returns; return the exit status (2 for bad input, 1 when the reader closed the pipe)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage error
        return int(exc.code or 0)
    try:
        result = args.func(args, stdin)
    except (InputError, RuleError) as exc:
        print(f"error: {exc}", file=stderr)
        return 2
    except RecursionError:  # pragma: no cover - absurdly nested JSON
        print("error: the input is nested too deeply", file=stderr)
        return 2
    try:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`
        return 1
    return 0


def quiet_after_a_closed_pipe(status: int) -> int:
    """Return `status`; when it says the reader closed the pipe (1), first point standard output
    at the null device, so that Python's flush at shutdown prints no BrokenPipeError."""
    if status == 1:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status
