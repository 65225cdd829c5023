"""Whole games between bots, straight on the rules state: `python -m benchmarks duel`.

One bot (`--bot`: strong by default, or expert) plays against bots of another level
(`--against`: easy by default, or strong) over many seeded deals, its seat moving round the
table from game to game (game k: the bot sits at seat k mod players), and the summary says how
often it won, by how much, and how much CPU each side spent per draft. The games run on several
processes (`--processes`).

The CPU of a draft is the process time a bot spends answering `next_actions` on its turn to
draft (its choice, the arranging that goes with it); the time it spends arranging at other
moments (after a forced take gave it a tile, at the finish) is counted in `cpu_per_game`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TextIO

from games.rules import cli
from games.rules.actions import Draft
from games.rules.bots import Bot, apply_all, make_bot
from games.rules.state import DRAFTING, FINISHING, GameState, new_game

LEVELS = ("easy", "strong", "expert")


class Metered(Bot):
    """A bot that counts the CPU (process time) it spends: per draft of its own (the calls that
    draft), and in all."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.drafts: list[float] = []
        self.total = 0.0

    def next_actions(self, state: GameState, seat: int):
        start = time.process_time()
        actions = self.bot.next_actions(state, seat)
        spent = time.process_time() - start
        self.total += spent
        if any(isinstance(action, Draft) for action in actions):
            self.drafts.append(spent)
        return actions


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


def _one_game(job: tuple) -> dict:
    players, seed, bot_seat, level, options, against, against_options = job
    bots = [Metered(make_bot(against, **against_options)) for _ in range(players)]
    bots[bot_seat] = Metered(make_bot(level, **options))
    start = time.perf_counter()
    state = play_bots(players, seed, bots)
    results = state.results()
    mine = results[bot_seat]
    best_other = max(r.score for r in results if r.seat != bot_seat)
    others = [bot for seat, bot in enumerate(bots) if seat != bot_seat]
    return {
        "seed": seed,
        "bot_seat": bot_seat,
        "scores": [r.score for r in results],
        "place": mine.place,
        "won": mine.place == 1,
        "margin": mine.score - best_other,
        "bot_draft_cpu": [round(t, 4) for t in bots[bot_seat].drafts],
        "opponent_draft_cpu": [round(t, 4) for bot in others for t in bot.drafts],
        "bot_cpu": round(bots[bot_seat].total, 3),
        "opponent_cpu": round(sum(bot.total for bot in others) / len(others), 3),
        "seconds": round(time.perf_counter() - start, 3),
    }


def _options(level: str, strong: dict, expert: dict) -> dict:
    # Every level's final arrangement is the solver's best: the easy bots search as long.
    easy = {"finish_time": strong["finish_time"]}
    return {"easy": easy, "strong": strong, "expert": expert}[level]


def run(
    *,
    games: int = 300,
    players: int = 2,
    seed: int = 0,
    processes: int = 2,
    bot: str = "strong",
    against: str = "easy",
    draft_time: float = 0.1,
    arrange_time: float = 0.1,
    finish_time: float = 0.5,
    deny: float = 0.5,
    expert: dict | None = None,
) -> dict:
    """Play `games` games of one `bot` against bots of level `against`; return the summary and
    each game. The strong bots (on either side) think with the time limits given; the expert
    with `expert`'s options (ExpertBot's fields: iterations, samples, ...)."""
    if bot not in LEVELS or against not in LEVELS:
        raise ValueError(f"bot levels are {', '.join(LEVELS)}")
    strong = {
        "draft_time": draft_time,
        "arrange_time": arrange_time,
        "finish_time": finish_time,
        "deny": deny,
    }
    expert = dict(expert or {})
    options = _options(bot, strong, expert)
    against_options = _options(against, strong, expert)
    jobs = [
        (players, seed + k, k % players, bot, options, against, against_options)
        for k in range(games)
    ]
    start = time.perf_counter()
    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            rows = list(pool.map(_one_game, jobs, chunksize=2))
    else:
        rows = [_one_game(job) for job in jobs]
    seconds = time.perf_counter() - start
    margins = [row["margin"] for row in rows]
    bot_scores = [row["scores"][row["bot_seat"]] for row in rows]
    other_scores = [s for row in rows for i, s in enumerate(row["scores"]) if i != row["bot_seat"]]
    wins = sum(row["won"] for row in rows)
    ordered = sorted(margins)
    return {
        "games": games,
        "players": players,
        "seed": seed,
        "bot": bot,
        "against": against,
        "bot_options": options,
        "against_options": against_options,
        "wins": wins,
        "win_rate": round(wins / games, 3),
        # A shared first place counts as a win; margin = the bot's score - best other score.
        "margin_mean": round(statistics.fmean(margins), 2),
        "margin_median": statistics.median(margins),
        "margin_p10": ordered[len(ordered) // 10],
        "margin_p90": ordered[(len(ordered) * 9) // 10],
        "bot_score_mean": round(statistics.fmean(bot_scores), 2),
        "opponent_score_mean": round(statistics.fmean(other_scores), 2),
        "places": {str(p): sum(row["place"] == p for row in rows) for p in range(1, players + 1)},
        "cpu_per_draft": {
            "bot": _cpu(row["bot_draft_cpu"] for row in rows),
            "opponent": _cpu(row["opponent_draft_cpu"] for row in rows),
        },
        "cpu_per_game": {
            "bot": round(statistics.fmean(row["bot_cpu"] for row in rows), 2),
            "opponent": round(statistics.fmean(row["opponent_cpu"] for row in rows), 2),
        },
        "seconds": round(seconds, 1),
        "rows": rows,
    }


def _cpu(per_game) -> dict:
    """Mean, 90th percentile and maximum of the CPU seconds of single drafts."""
    times = sorted(t for game in per_game for t in game)
    if not times:
        return {"mean": 0.0, "p90": 0.0, "max": 0.0, "drafts": 0}
    return {
        "mean": round(statistics.fmean(times), 3),
        "p90": round(times[(len(times) * 9) // 10], 3),
        "max": round(times[-1], 3),
        "drafts": len(times),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks duel",
        description="One bot against bots of another level: win rate, score margins and CPU "
        "per draft; JSON out.",
    )
    parser.add_argument("--bot", choices=LEVELS, default="strong", help="the bot measured")
    parser.add_argument("--against", choices=LEVELS, default="easy", help="its opponents")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6), metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2, help="games played in parallel")
    parser.add_argument("--draft-time", type=float, default=0.05, metavar="SECONDS")
    parser.add_argument("--arrange-time", type=float, default=0.05, metavar="SECONDS")
    parser.add_argument("--finish-time", type=float, default=0.3, metavar="SECONDS")
    parser.add_argument("--deny", type=float, default=0.5, help="weight of what a tile denies")
    parser.add_argument("--iterations", type=int, default=None, help="expert: search iterations")
    parser.add_argument(
        "--samples", type=int, default=None, help="expert: calibration playouts per choice"
    )
    parser.add_argument("--calibrate", type=int, default=None, help="expert: choices calibrated")
    parser.add_argument(
        "--solver-nodes", type=int, default=None, help="expert: solver nodes per calibration"
    )
    parser.add_argument("--engine-seed", type=int, default=None, help="expert: its seed")
    parser.add_argument("--rows", action="store_true", help="also print every game")
    parser.set_defaults(func=_command)
    return parser


def _command(args: argparse.Namespace, stdin: TextIO) -> dict:
    if args.games < 1 or args.processes < 1:
        raise cli.InputError("--games and --processes must be at least 1")
    expert = {
        name: value
        for name, value in (
            ("iterations", args.iterations),
            ("samples", args.samples),
            ("calibrate", args.calibrate),
            ("solver_nodes", args.solver_nodes),
            ("seed", args.engine_seed),
        )
        if value is not None
    }
    result = run(
        games=args.games,
        players=args.players,
        seed=args.seed,
        processes=args.processes,
        bot=args.bot,
        against=args.against,
        draft_time=args.draft_time,
        arrange_time=args.arrange_time,
        finish_time=args.finish_time,
        deny=args.deny,
        expert=expert,
    )
    if not args.rows:
        result.pop("rows")
    return result


def main(argv: Sequence[str] | None = None, **streams: TextIO) -> int:
    """`python -m benchmarks duel`; return the exit status (2 for bad input)."""
    return cli.run(build_parser(), argv, **streams)
