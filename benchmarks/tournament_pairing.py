"""Tournament pairing benchmark: Swiss rounds for a large field at 2- and 5-player tables,
a whole simulated Swiss checked against a recount, and round-robin sections.

    .venv/bin/python -m benchmarks pairing          # the figures in docs/tournaments.md
    .venv/bin/python -m benchmarks pairing --quick  # a small run (what the test runs)

Pure Python, no database: it times the functions the platform calls (games/tournaments/), on a
made-up field whose results come from a seeded generator (each player a hidden strength, each
game's scores that strength plus noise; equal scores share a place). For each round it prints
the time to pair (wall clock and this process's CPU time, which a busy machine does not
inflate), the repeat meetings and the lower bound beside them. It exits 1 if a check fails: a
player seated twice or left out, a wrong table size, or standings that disagree with a recount.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

from games.tournaments.formats import PlacePoints, table_sizes
from games.tournaments.meetings import Meetings
from games.tournaments.pairing import SwissPlayer, SwissRound, pair_round
from games.tournaments.round_robin import schedule_section
from games.tournaments.sections import split_sections
from games.tournaments.standings import GameRecord, standings

TARGET_SECONDS = 1.0


class CheckFailed(AssertionError):
    pass


@dataclass
class Field:
    """A made-up tournament field: hidden strengths, points so far, byes, who is out."""

    count: int
    rng: random.Random
    points: dict[int, Fraction] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)
    out: set[int] = field(default_factory=set)
    strength: dict[int, float] = field(default_factory=dict)
    seed_of: dict[int, int] = field(default_factory=dict)

    def __post_init__(self):
        for player in range(self.count):
            self.strength[player] = self.rng.gauss(0, 1)
            self.points[player] = Fraction(0)
            self.byes[player] = 0
        # Seeding by a rating: the strength as seen through some noise.
        rated = sorted(
            range(self.count), key=lambda p: -(self.strength[p] + self.rng.gauss(0, 0.3))
        )
        self.seed_of = {player: index for index, player in enumerate(rated)}

    def swiss_players(self) -> list[SwissPlayer]:
        return [
            SwissPlayer(p, self.seed_of[p], self.points[p], self.byes[p], withdrawn=p in self.out)
            for p in range(self.count)
        ]

    def play(self, table: tuple[int, ...]) -> GameRecord:
        scores = tuple(
            max(0, round(60 + 8 * (self.strength[p] + self.rng.gauss(0, 1.2)))) for p in table
        )
        places = tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)
        return GameRecord(table, places, scores)


def check_round(players: list[SwissPlayer], result: SwissRound, size: int) -> None:
    active = sorted(p.id for p in players if p.paired)
    seated = list(result.seated) + ([result.bye] if result.bye is not None else [])
    if sorted(seated) != active:
        raise CheckFailed("a player is seated twice or left out")
    sizes = tuple(len(t) for t in result.tables)
    expected = table_sizes(len(active), size)
    if sizes != expected:
        raise CheckFailed(f"tables of {sizes}, expected {expected}")
    if result.repeat_bound > result.repeats:
        raise CheckFailed("more repeats avoided than the bound allows")


def swiss(count: int, size: int, rounds: int, seed: int, withdraw: int = 0, quiet: bool = False):
    """Play a Swiss of `count` players at tables of `size`; returns the per-round figures, the
    games, and the field. `withdraw` players leave after the second round."""
    rng = random.Random(f"tournament benchmark {count} {size} {seed}")
    made_up = Field(count, rng)
    meetings = Meetings()
    points = PlacePoints()
    games: list[GameRecord] = []
    figures = []
    for number in range(1, rounds + 1):
        if number == 3 and withdraw:
            made_up.out.update(rng.sample(range(count), withdraw))
        players = made_up.swiss_players()
        wall, cpu = time.perf_counter(), time.process_time()
        result = pair_round(players, meetings, size)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        check_round(players, result, size)
        figures.append((number, wall, cpu, len(result.tables), result.repeats, result.repeat_bound))
        if not quiet:
            print(
                f"  round {number:2}: {wall:6.3f} s wall, {cpu:6.3f} s CPU, "
                f"{len(result.tables)} tables, repeats {result.repeats} "
                f"(bound {result.repeat_bound})"
                + (f", bye {result.bye}" if result.bye is not None else "")
            )
        for table in result.tables:
            game = made_up.play(table)
            games.append(game)
            meetings.add(table)
            for player, gained in zip(table, points.points(game.places), strict=True):
                made_up.points[player] += gained
        if result.bye is not None:
            made_up.byes[result.bye] += 1
            made_up.points[result.bye] += points.win
    return figures, games, made_up


def summary(label: str, figures) -> bool:
    worst_wall = max(f[1] for f in figures)
    worst_cpu = max(f[2] for f in figures)
    repeats = sum(f[4] for f in figures)
    bound = sum(f[5] for f in figures)
    ok = worst_cpu < TARGET_SECONDS
    print(
        f"  {label}: slowest round {worst_wall:.3f} s wall, {worst_cpu:.3f} s CPU "
        f"({'under' if ok else 'OVER'} {TARGET_SECONDS:.0f} s); "
        f"repeats over all rounds {repeats}, bounds {bound}"
    )
    return ok


def recount(count: int, size: int, rounds: int, seed: int, withdraw: int) -> None:
    """A whole Swiss; the points kept round by round (as the platform keeps them) must agree
    with the standings recounted from the games."""
    figures, games, made_up = swiss(count, size, rounds, seed, withdraw, quiet=True)
    rows = standings(list(range(count)), games, PlacePoints(), made_up.byes, withdrawn=made_up.out)
    wrong = [row.player for row in rows if row.points != made_up.points[row.player]]
    if wrong:
        raise CheckFailed(f"standings disagree with the recount for players {wrong[:10]}")
    played = sum(len(game.players) for game in games)
    print(
        f"  {count} players, {rounds} rounds at tables of {size}, {withdraw} withdrawn after "
        f"round 2: {len(games)} games, {played} seats; slowest pairing "
        f"{max(f[1] for f in figures):.3f} s; repeats {sum(f[4] for f in figures)} "
        f"(bounds {sum(f[5] for f in figures)}); standings agree with the recount"
    )
    top = ", ".join(f"{row.place}. #{row.player} {row.points}" for row in rows[:5])
    print(f"  top five: {top}")


def sections(count: int, section_size: int, size: int) -> None:
    order = list(range(count))
    wall = time.perf_counter()
    parts = split_sections(order, section_size)
    schedules = [schedule_section(part, size) for part in parts]
    wall = time.perf_counter() - wall
    games = sum(len(s.tables) for s in schedules)
    spread = sorted({(s.fewest_meetings, s.most_meetings) for s in schedules})
    lengths = sorted({len(part) for part in parts})
    print(
        f"  {count} players in sections of at most {section_size} at tables of {size}: "
        f"{len(parts)} sections of {lengths} players, {games} games, {wall:.3f} s; "
        f"pair meetings (fewest, most) {spread}"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks pairing", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--sim-players", type=int, default=200)
    parser.add_argument("--sim-rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a small run: 60 players, 4 rounds")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.quick:
        args.players, args.rounds, args.sim_players, args.sim_rounds = 61, 4, 40, 3
    print(f"Tournament pairing benchmark (load average {os.getloadavg()[0]:.1f}, seed {args.seed})")
    ok = True
    try:
        for size in (2, 5):
            print(f"Swiss, {args.players} players at tables of {size}, {args.rounds} rounds:")
            figures, _, _ = swiss(args.players, size, args.rounds, args.seed)
            ok = summary(f"{args.players} at tables of {size}", figures) and ok
        print("A whole Swiss, recounted:")
        recount(
            args.sim_players, 5, args.sim_rounds, args.seed, withdraw=max(1, args.sim_players // 50)
        )
        recount(args.sim_players + 1, 2, args.sim_rounds, args.seed, withdraw=1)
        print("Round-robin sections:")
        for section_size, size in ((12, 2), (13, 5), (10, 4), (15, 3)):
            sections(args.players, section_size, size)
    except CheckFailed as failure:
        print(f"CHECK FAILED: {failure}")
        return 1
    if not ok:
        print(f"A round took {TARGET_SECONDS:.0f} s of CPU or more.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
