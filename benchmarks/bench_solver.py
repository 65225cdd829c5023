"""Benchmark the best-chip solver: time to a proved optimum on random deals.

    python -m benchmarks solver [--deals 30] [--sizes 12,15,20,25] [--seed 0]
                                [--anytime 0.1] [--json]

For each tray size (12, 15, 20 and 25 tiles: what each player drafts with 5, 4, 3 and 2 players)
it solves `--deals` fixed deals: a random board from `deal.make_board_colours` and a random
subset of the 60 tiles, both from `random.Random(seed * 1000 + size + 7919 * k)` for deal k. It
prints, per size, the median and slowest wall-clock time to the proved optimum (and the same in
CPU time of this process, which other processes on the machine do not inflate), how many were
proved, the median and largest search node counts and the median score. With `--anytime S` it
also solves every deal again under a time limit of S seconds and reports how often that found
the optimum and the mean shortfall. The targets: median under 0.5 s, slowest under 5 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from games.rules.deal import make_board_colours
from games.rules.solver import best_arrangement

SIZES = (12, 15, 20, 25)


def deals(size: int, count: int, seed: int = 0) -> list[tuple[tuple, list[int]]]:
    """Return `count` fixed (colours, tile ids) deals of `size` tiles."""
    out = []
    for k in range(count):
        rng = random.Random(seed * 1000 + size + 7919 * k)
        colours = make_board_colours(rng, ())
        out.append((colours, rng.sample(range(60), size)))
    return out


def bench_size(size: int, count: int, seed: int = 0, anytime: float | None = None) -> dict:
    walls, cpus, nodes, scores = [], [], [], []
    proved = 0
    hits, shortfall = 0, 0
    for colours, tiles in deals(size, count, seed):
        wall, cpu = time.perf_counter(), time.process_time()
        result = best_arrangement(colours, tiles)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        proved += result.optimal
        nodes.append(result.nodes)
        scores.append(result.score)
        if anytime is not None:
            quick = best_arrangement(colours, tiles, time_limit=anytime)
            hits += quick.score == result.score
            shortfall += result.score - quick.score
    out = {
        "tiles": size,
        "deals": count,
        "proved_optimal": proved,
        "median_seconds": round(statistics.median(walls), 4),
        "max_seconds": round(max(walls), 4),
        "median_cpu_seconds": round(statistics.median(cpus), 4),
        "max_cpu_seconds": round(max(cpus), 4),
        "median_nodes": int(statistics.median(nodes)),
        "max_nodes": max(nodes),
        "median_score": statistics.median(scores),
    }
    if anytime is not None:
        out["anytime_limit"] = anytime
        out["anytime_found_optimum"] = hits
        out["anytime_mean_shortfall"] = round(shortfall / count, 2)
    return out


def run(
    sizes=SIZES, count: int = 30, seed: int = 0, anytime: float | None = None, out=sys.stdout
) -> list[dict]:
    rows = []
    for size in sizes:
        row = bench_size(size, count, seed, anytime)
        rows.append(row)
        if out is not None:
            line = (
                f"{size:>2} tiles: {row['proved_optimal']}/{count} proved optimal; "
                f"median {row['median_seconds']:.3f} s, max {row['max_seconds']:.3f} s "
                f"(cpu median {row['median_cpu_seconds']:.3f} s, max {row['max_cpu_seconds']:.3f}"
                f" s); nodes median {row['median_nodes']}, max {row['max_nodes']}; "
                f"median score {row['median_score']}"
            )
            if anytime is not None:
                line += (
                    f"; within {anytime} s: optimum {row['anytime_found_optimum']}/{count}, "
                    f"mean shortfall {row['anytime_mean_shortfall']}"
                )
            print(line, file=out, flush=True)
    return rows


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks solver",
        description="The best-chip solver's time to a proved optimum on random deals.",
    )
    parser.add_argument("--deals", type=int, default=30, help="deals per size (default 30)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="e.g. 12,15,20,25")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--anytime", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        parser.error("--sizes must be whole numbers separated by commas")
    if args.deals < 1 or not all(0 <= s <= 60 for s in sizes):
        parser.error("--deals must be at least 1 and sizes 0 to 60")
    rows = run(sizes, args.deals, args.seed, args.anytime, out=None if args.json else sys.stdout)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0
