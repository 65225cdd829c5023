"""The Swiss pairing at 2-player tables: a maximum weight matching (networkx's blossom
algorithm) whose weights put, in this order of priority, fewest repeat meetings, then pairs
within a score group (floating as few players as far as possible), then the fold of each score
group (its top half against its bottom half, in seeding order).

networkx's matching is pure Python and grows faster than the square of the players, so a large
field is matched in blocks of the pairing order (each block holds whole ideal pairs); a block
that cannot avoid a repeat is merged with its neighbour and matched again, until none has one
or the block is the whole field. A field of up to FULL_FIELD players is matched in one piece
over every possible pair, the bye included, which makes its repeats the fewest possible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import networkx as nx

from .meetings import Meetings

FULL_FIELD = 100  # up to this many players, one matching over every pair
BLOCK = 32  # a larger field is matched in blocks of this many (even: whole pairs)
COMPLETE_UP_TO = 128  # a merged block this size or smaller still gets every pair as an edge
BAND = 24  # a larger merged block: each player's edges reach this far along the pairing order


class _Bye:
    """The empty seat that pairs with the bye player in a field of odd count."""

    def __repr__(self):
        return "BYE"


BYE = _Bye()


def bye_candidates(order: Sequence[int], byes: Mapping[int, int]) -> list[int]:
    """Those who may take the bye: the players with the fewest byes so far (no one has a second
    bye while someone still has none), in standing order."""
    fewest = min(byes.get(p, 0) for p in order)
    return [p for p in order if byes.get(p, 0) == fewest]


def pairing_sequence(order: Sequence, group: Mapping) -> list:
    """The field in an order where each ideal pair is two neighbours: score group by score group
    from the top, the odd player out of a group (its lowest) floating down to meet the top of the
    next group, and the rest of each group folded, its top half interleaved with its bottom half
    (1st against the first of the bottom half, and so on)."""
    runs: list[list] = []
    for player in order:
        if runs and group[runs[-1][0]] == group[player]:
            runs[-1].append(player)
        else:
            runs.append([player])
    sequence: list = []
    floater = None
    for index, run in enumerate(runs):
        bracket = ([floater] if floater is not None else []) + run
        head = bracket[:2] if floater is not None else []
        floater = None
        if len(bracket) % 2 and index < len(runs) - 1:
            floater = bracket.pop()
            head = head[: len(bracket)]
        rest = bracket[len(head) :]
        half = len(rest) // 2
        sequence += head
        for top, bottom in zip(rest[:half], rest[half:], strict=True):
            sequence += [top, bottom]
    return sequence


def _match(
    segment: list,
    group: Mapping,
    meetings: Meetings,
    eligible: set,
    complete: bool,
    new_only: bool = False,
):
    """The best pairs of one segment of the pairing sequence (an even number of players; the
    empty seat, if any, only in a complete one, and only beside the players in `eligible`).
    With `new_only`, only pairs who never met are edges: None if they cannot pair everyone."""
    size = len(segment)
    reach = size if complete else BAND
    edges = []
    for a in range(size):
        for b in range(a + 1, min(size, a + reach + 1)):
            u, v = segment[a], segment[b]
            if u is BYE or v is BYE:
                if (v if u is BYE else u) not in eligible:
                    continue
                met = 0
            else:
                met = meetings.count(u, v)
                if met and new_only:
                    continue
            edges.append((a, b, met, abs(group[u] - group[v]), b - a - 1))
    if not edges:
        return None
    # Costs in three tiers, each heavier than all that the next tier could add up to over a
    # whole matching, so the matching minimises repeats first, then the squared score gaps,
    # then the squared distances from the ideal neighbours (squared: two pairs a seat off the
    # fold are better than one pair three seats off).
    tier_3 = (size // 2) * size * size + 1
    worst_gap = max(gap for *_, gap, _ in edges)
    tier_2 = tier_3 * ((size // 2) * worst_gap * worst_gap + 1)
    costs = [
        (a, b, met * tier_2 + gap * gap * tier_3 + dist * dist) for a, b, met, gap, dist in edges
    ]
    top = max(cost for *_, cost in costs) + 1
    graph = nx.Graph()
    graph.add_weighted_edges_from((a, b, top - cost) for a, b, cost in costs)
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matched) != size:
        if new_only:
            return None
        raise AssertionError("the pairing graph of a segment has no perfect matching")
    return [(segment[a], segment[b]) for a, b in matched]


def pair_players(
    order: Sequence[int],
    points: Mapping[int, Fraction],
    byes: Mapping[int, int],
    meetings: Meetings,
) -> tuple[list[tuple[int, int]], int | None]:
    """Pair the field (`order`: the players in standing order) for one round. Returns the
    pairs, best first, each in standing order, and the bye (None when the count is even)."""
    levels = sorted(set(points.values()), reverse=True)
    group: dict = {player: levels.index(points[player]) for player in order}
    rank = {player: index for index, player in enumerate(order)}
    field = list(order)
    eligible: set = set()
    bye = None
    if len(field) % 2:
        candidates = bye_candidates(field, byes)
        if len(field) <= FULL_FIELD:
            eligible = set(candidates)
            group[BYE] = len(levels)
            field.append(BYE)
        else:
            bye = candidates[-1]  # the lowest-ranked who may have it
            field.remove(bye)
    sequence = pairing_sequence(field, group)
    if BYE in group:
        pairs = _match(sequence, group, meetings, eligible, complete=True)
        bye = next(u if v is BYE else v for u, v in pairs if BYE in (u, v))
    elif len(sequence) <= FULL_FIELD:
        pairs = _match(sequence, group, meetings, eligible, complete=True)
    else:
        pairs = _match_in_blocks(sequence, group, meetings)
    real = [tuple(sorted(pair, key=rank.__getitem__)) for pair in pairs if BYE not in pair]
    real.sort(key=lambda pair: rank[pair[0]])
    return real, bye


def _match_in_blocks(sequence: list, group: Mapping, meetings: Meetings):
    """Match each block of the sequence over the pairs who never met; a block that cannot be
    paired so is merged with its neighbour and tried again, and the whole field, if it comes
    to that, is matched over every pair in reach."""
    segments = [sequence[start : start + BLOCK] for start in range(0, len(sequence), BLOCK)]
    solved = [_match(segment, group, meetings, set(), True, new_only=True) for segment in segments]
    while None in solved:
        stuck = solved.index(None)
        if len(segments) == 1:
            solved = [_match(segments[0], group, meetings, set(), len(sequence) <= COMPLETE_UP_TO)]
            break
        low = stuck if stuck + 1 < len(segments) else stuck - 1
        merged = segments[low] + segments[low + 1]
        complete = len(merged) <= COMPLETE_UP_TO
        segments[low : low + 2] = [merged]
        solved[low : low + 2] = [_match(merged, group, meetings, set(), complete, new_only=True)]
    return [pair for pairs in solved for pair in pairs]


def pairs_repeat_bound(order: Sequence[int], meetings: Meetings) -> int:
    """A lower bound on the repeat meetings of any pairing of these players in twos (whoever
    takes the bye, whatever the scores).

    0 when every player has not yet met at least half the field: then, by Dirac's theorem, the
    pairs who never met hold a Hamiltonian cycle, and so a pairing with no repeat. Otherwise,
    in a field of up to FULL_FIELD players, the exact minimum: a matching of the field that
    minimises prior meetings alone. Otherwise, those who have met everyone still here must
    each meet someone again (but for the bye), two to a pair."""
    players = len(order)
    if players < 2:
        return 0
    if players == 2:
        return meetings.count(order[0], order[1])
    present = set(order)
    new_partners = [players - 1 - len(meetings.opponents(p) & present) for p in order]
    if 2 * min(new_partners) >= players:
        return 0
    if players <= FULL_FIELD:
        most = max(meetings.count(u, v) for i, u in enumerate(order) for v in order[i + 1 :])
        graph = nx.Graph()
        graph.add_weighted_edges_from(
            (u, v, most + 1 - meetings.count(u, v))
            for i, u in enumerate(order)
            for v in order[i + 1 :]
        )
        matched = nx.max_weight_matching(graph, maxcardinality=True)
        return sum(meetings.count(u, v) for u, v in matched)
    met_everyone = sum(1 for partners in new_partners if partners == 0)
    return max(0, -(-(met_everyone - players % 2) // 2))
