"""Whole games between bots, straight on the rules state: `python -m benchmarks duel`.

One strong bot plays against easy bots over many seeded deals, its seat moving round the table
from game to game (game k: the strong bot sits at seat k mod players), and the summary says how
often it won and by how much. The games run on several processes (`--processes`).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TextIO

from games.rules import cli
from games.rules.bots import Bot, EasyBot, StrongBot, apply_all
from games.rules.state import DRAFTING, FINISHING, GameState, new_game


def play_bots(players: int, seed: int, bots: list[Bot]) -> GameState:
    """Play a whole game with one bot per seat, the server's forced takes included."""
    state = new_game(players, seed)
    while state.phase == DRAFTING:
        seat = state.current
        forced = state.forced_action()
        if forced is not None:
            state = state.apply(forced, seat)
            # The tile arrived outside the seat's turn: it may rearrange now.
            state = apply_all(state, seat, bots[seat].next_actions(state, seat))
            continue
        state = apply_all(state, seat, bots[seat].next_actions(state, seat))
    for seat in range(players):
        if state.phase == FINISHING:
            state = apply_all(state, seat, bots[seat].next_actions(state, seat))
    return state


def _one_game(job: tuple[int, int, int, dict]) -> dict:
    players, seed, strong_seat, options = job
    # Every level's final arrangement is the solver's best: the easy bots search as long.
    bots: list[Bot] = [EasyBot(finish_time=options["finish_time"]) for _ in range(players)]
    bots[strong_seat] = StrongBot(**options)
    start = time.perf_counter()
    state = play_bots(players, seed, bots)
    results = state.results()
    strong = results[strong_seat]
    best_other = max(r.score for r in results if r.seat != strong_seat)
    return {
        "seed": seed,
        "strong_seat": strong_seat,
        "scores": [r.score for r in results],
        "strong_place": strong.place,
        "won": strong.place == 1,
        "margin": strong.score - best_other,
        "seconds": round(time.perf_counter() - start, 3),
    }


def run(
    *,
    games: int = 300,
    players: int = 2,
    seed: int = 0,
    processes: int = 2,
    draft_time: float = 0.1,
    arrange_time: float = 0.1,
    finish_time: float = 0.5,
    deny: float = 0.5,
) -> dict:
    """Play `games` games of one strong bot against easy bots; return the summary and each game."""
    options = {
        "draft_time": draft_time,
        "arrange_time": arrange_time,
        "finish_time": finish_time,
        "deny": deny,
    }
    jobs = [(players, seed + k, k % players, options) for k in range(games)]
    start = time.perf_counter()
    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            rows = list(pool.map(_one_game, jobs, chunksize=4))
    else:
        rows = [_one_game(job) for job in jobs]
    seconds = time.perf_counter() - start
    margins = [row["margin"] for row in rows]
    strong_scores = [row["scores"][row["strong_seat"]] for row in rows]
    easy_scores = [
        s for row in rows for i, s in enumerate(row["scores"]) if i != row["strong_seat"]
    ]
    wins = sum(row["won"] for row in rows)
    ordered = sorted(margins)
    return {
        "games": games,
        "players": players,
        "seed": seed,
        "strong_bot": options,
        "strong_wins": wins,
        "strong_win_rate": round(wins / games, 3),
        # A shared first place counts as a win; margin = strong score - best other score.
        "margin_mean": round(statistics.fmean(margins), 2),
        "margin_median": statistics.median(margins),
        "margin_p10": ordered[len(ordered) // 10],
        "margin_p90": ordered[(len(ordered) * 9) // 10],
        "strong_score_mean": round(statistics.fmean(strong_scores), 2),
        "easy_score_mean": round(statistics.fmean(easy_scores), 2),
        "places": {
            str(p): sum(row["strong_place"] == p for row in rows) for p in range(1, players + 1)
        },
        "seconds": round(seconds, 1),
        "rows": rows,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks duel",
        description="One strong bot against easy bots: win rate and score margins; JSON out.",
    )
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6), metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2, help="games played in parallel")
    parser.add_argument("--draft-time", type=float, default=0.05, metavar="SECONDS")
    parser.add_argument("--arrange-time", type=float, default=0.05, metavar="SECONDS")
    parser.add_argument("--finish-time", type=float, default=0.3, metavar="SECONDS")
    parser.add_argument("--deny", type=float, default=0.5, help="weight of what a tile denies")
    parser.add_argument("--rows", action="store_true", help="also print every game")
    parser.set_defaults(func=_command)
    return parser


def _command(args: argparse.Namespace, stdin: TextIO) -> dict:
    if args.games < 1 or args.processes < 1:
        raise cli.InputError("--games and --processes must be at least 1")
    result = run(
        games=args.games,
        players=args.players,
        seed=args.seed,
        processes=args.processes,
        draft_time=args.draft_time,
        arrange_time=args.arrange_time,
        finish_time=args.finish_time,
        deny=args.deny,
    )
    if not args.rows:
        result.pop("rows")
    return result


def main(argv: Sequence[str] | None = None, **streams: TextIO) -> int:
    """`python -m benchmarks duel`; return the exit status (2 for bad input)."""
    return cli.run(build_parser(), argv, **streams)
