"""Standings from the games of a tournament: points per place, the tie-breaks, the crosstable.

Points are exact Fractions. The order: points; then the opponents' points (for each game, the
average final points of the opponents at that table, added up over the player's games: with
2-player tables, the sum of the opponents' points, Buchholz's tie-break); then the total of the
player's scores in their games; then the place is shared.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .formats import FormatError, PlacePoints, check_places


@dataclass(frozen=True)
class GameRecord:
    """One table of the tournament: its players, and once the game has ended each player's
    place (1-based, shared places competition style) and score in the game."""

    players: tuple[int, ...]
    places: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None

    def __post_init__(self):
        if len(set(self.players)) != len(self.players):
            raise FormatError(f"a player sits twice at one table: {self.players}")
        if self.places is not None:
            if len(self.places) != len(self.players):
                raise FormatError("each player of the table needs a place")
            check_places(self.places)
        if self.scores is not None and len(self.scores) != len(self.players):
            raise FormatError("each player of the table needs a score")

    @property
    def finished(self) -> bool:
        return self.places is not None


@dataclass(frozen=True)
class Standing:
    player: int
    place: int
    shared: bool
    points: Fraction
    opponents_points: Fraction
    game_score: int
    games: int
    byes: int
    withdrawn: bool


def game_points(game: GameRecord, place_points: PlacePoints) -> dict[int, Fraction]:
    """The tournament points each player of a finished game earned."""
    if game.places is None:
        return {}
    return dict(zip(game.players, place_points.points(game.places), strict=True))


def standings(
    players: Sequence[int],
    games: Iterable[GameRecord],
    place_points: PlacePoints,
    byes: Mapping[int, int] | None = None,
    bye_points: Fraction | None = None,
    withdrawn: Collection[int] = (),
) -> list[Standing]:
    """Every player of the tournament (`players`: in seeding order, which orders players who
    share a place), best first. Withdrawn players stay in, their games counting; unfinished
    games count for nothing yet; a bye is worth `bye_points` (by default a win's) and adds
    nothing to the opponents' points."""
    byes = byes or {}
    bye_value = place_points.win if bye_points is None else Fraction(bye_points)
    seeding = {player: index for index, player in enumerate(players)}
    finished = [game for game in games if game.finished]
    for game in finished:
        unknown = [p for p in game.players if p not in seeding]
        if unknown:
            raise FormatError(f"players {unknown} are not in the tournament")
    points = {player: byes.get(player, 0) * bye_value for player in players}
    score = dict.fromkeys(players, 0)
    played = dict.fromkeys(players, 0)
    earned = [game_points(game, place_points) for game in finished]
    for game, gained in zip(finished, earned, strict=True):
        for index, player in enumerate(game.players):
            points[player] += gained[player]
            played[player] += 1
            score[player] += game.scores[index] if game.scores is not None else 0
    opponents = {player: Fraction(0) for player in players}
    for game in finished:
        for player in game.players:
            others = [points[other] for other in game.players if other != player]
            opponents[player] += sum(others, Fraction(0)) / len(others)
    key = {player: (-points[player], -opponents[player], -score[player]) for player in players}
    ranked = sorted(players, key=lambda player: (key[player], seeding[player]))
    sharing: dict[tuple, int] = {}
    first: dict[tuple, int] = {}
    for index, player in enumerate(ranked):
        first.setdefault(key[player], index + 1)
        sharing[key[player]] = sharing.get(key[player], 0) + 1
    out = []
    for player in ranked:
        place, shared = first[key[player]], sharing[key[player]] > 1
        out.append(
            Standing(
                player, place, shared, points[player], opponents[player], score[player],
                played[player], byes.get(player, 0), player in withdrawn,
            )
        )  # fmt: skip
    return out


@dataclass(frozen=True)
class Crosstable:
    """The results of a round-robin section, player against player: `cells[(row, column)]` has,
    for each game the two share, the row player's result against the column player (1 ahead
    of them, 1/2 level, 0 behind; None while the game goes on). At a table of several, each
    pair at it has its own result, as if they had played each other."""

    players: tuple[int, ...]
    cells: Mapping[tuple[int, int], tuple[Fraction | None, ...]]

    def cell(self, row: int, column: int) -> tuple[Fraction | None, ...]:
        return self.cells.get((row, column), ())

    def total(self, row: int) -> Fraction:
        """The row player's results added up: with the default points per place, their points."""
        return sum(
            (
                result
                for column in self.players
                for result in self.cell(row, column)
                if result is not None
            ),
            Fraction(0),
        )


def _against(mine: int, theirs: int) -> Fraction:
    if mine == theirs:
        return Fraction(1, 2)
    return Fraction(1 if mine < theirs else 0)


def crosstable(players: Sequence[int], games: Iterable[GameRecord]) -> Crosstable:
    """The crosstable of a section, its rows and columns in the order of `players` (the
    standings' order)."""
    cells: dict[tuple[int, int], list[Fraction | None]] = {}
    for game in games:
        for i, row in enumerate(game.players):
            for j, column in enumerate(game.players):
                if i == j:
                    continue
                if game.places is None:
                    result = None
                else:
                    mine, theirs = game.places[i], game.places[j]
                    result = Fraction(
                        1 if mine < theirs else 0 if mine > theirs else Fraction(1, 2)
                    )
                cells.setdefault((row, column), []).append(result)
    return Crosstable(tuple(players), {key: tuple(value) for key, value in cells.items()})
