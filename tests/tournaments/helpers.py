"""Brute force and made-up histories for the tournament tests: small fields solved by trying
everything, to hold the pairing and the schedules against."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

from games.tournaments.meetings import Meetings
from games.tournaments.pairing import SwissPlayer

HALF = Fraction(1, 2)


def matchings(players):
    """Every way to pair an even list of players."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for index, other in enumerate(rest):
        for more in matchings(rest[:index] + rest[index + 1 :]):
            yield [(first, other), *more]


def pairings(players, bye_allowed):
    """Every pairing of the field: (pairs, bye), the bye one of `bye_allowed` when odd."""
    if len(players) % 2 == 0:
        for pairs in matchings(players):
            yield pairs, None
        return
    for bye in players:
        if bye in bye_allowed:
            for pairs in matchings([p for p in players if p != bye]):
                yield pairs, bye


def seatings(players, sizes):
    """Every way to split the players into tables of these sizes (tables in no order)."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes), reverse=True):
        left_sizes = list(sizes)
        left_sizes.remove(size)
        for mates in combinations(rest, size - 1):
            table = (first, *mates)
            for more in seatings([p for p in rest if p not in mates], left_sizes):
                yield [table, *more]


def history(seed, count, rounds, table_size=2, withdrawn=0):
    """A field of `count` players after `rounds` randomly seated rounds with random results:
    (players, meetings). Points move in halves; a few players may be out."""
    rng = random.Random(seed)
    meetings = Meetings()
    points = {p: Fraction(0) for p in range(count)}
    byes = dict.fromkeys(range(count), 0)
    for _ in range(rounds):
        field = list(range(count))
        rng.shuffle(field)
        if table_size == 2 and len(field) % 2:
            byes[field.pop()] += 1
        for start in range(0, len(field) - 1, table_size):
            table = field[start : start + table_size]
            if len(table) > 1:
                meetings.add(table)
                for player in table:
                    points[player] += rng.choice((0, HALF, 1))
    out = rng.sample(range(count), withdrawn) if withdrawn else []
    seeds = list(range(count))
    rng.shuffle(seeds)
    players = [
        SwissPlayer(p, seeds[p], points[p], byes[p], withdrawn=p in out) for p in range(count)
    ]
    return players, meetings


def score_groups(players):
    levels = sorted({p.points for p in players}, reverse=True)
    return {p.id: levels.index(p.points) for p in players}, len(levels)
