"""Reading a tournament: its games as the pure standings see them, its standings and crosstables,
its rounds' tables, for the pages, the API, the notices and the changes (which read them under
the tournament's lock).

Every figure comes from the games themselves (their seats' places and scores), never from a
copy kept beside them: the standings are a recount each time.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from fractions import Fraction

from django.db.models import F, Prefetch

from accounts.models import User
from games.models import Event, Game, Seat

from .models import Entry, Pairing, Round, Tournament
from .standings import Crosstable, GameRecord, Standing, crosstable, standings

# The window of the entry limit on timeouts (Board Game Arena's reliability filter).
TIMEOUT_WINDOW = timedelta(days=90)
# The seats a player leaves by walking away (not by resigning): two of them in a tournament's
# games and they are paired no more (formats.still_paired).
ABANDONING = (Seat.Left.ABANDONED, Seat.Left.EXPELLED)


def games_of(tournament: Tournament) -> list[Game]:
    """Every game of the tournament with its seats (and their users) in seat order, in the
    order of the rounds and their tables."""
    seats = Seat.objects.select_related("user").order_by("number")
    return list(
        Game.objects.filter(tournament_round__tournament=tournament)
        .select_related("tournament_round")
        .prefetch_related(Prefetch("seats", queryset=seats))
        .order_by("tournament_round__number", "pk")
    )


def record(game: Game) -> GameRecord:
    """The game as the standings see it: its players, and once it has ended their places and
    scores."""
    seats = list(game.seats.all())
    players = tuple(seat.user_id for seat in seats)
    if game.status != Game.Status.ENDED:
        return GameRecord(players)
    return GameRecord(
        players,
        places=tuple(seat.place for seat in seats),
        scores=tuple(seat.score or 0 for seat in seats),
    )


def abandons(games: Sequence[Game]) -> Counter[int]:
    """How many of the tournament's games each player walked away from."""
    return Counter(
        seat.user_id for game in games for seat in game.seats.all() if seat.left in ABANDONING
    )


def byes(tournament: Tournament) -> Counter[int]:
    return Counter(
        Pairing.objects.filter(round__tournament=tournament, game__isnull=True).values_list(
            "user_id", flat=True
        )
    )


def entries_of(tournament: Tournament) -> list[Entry]:
    """The entrants with their users: in seeding order once it started, else as they came."""
    order = ("seed", "registered_at", "pk") if tournament.started_at else ("registered_at", "pk")
    return list(tournament.entries.select_related("user").order_by(*order))


@dataclass(frozen=True)
class Row:
    """One line of the standings, with the entrant it is about."""

    entry: Entry
    standing: Standing
    abandons: int = 0

    @property
    def user(self) -> User:
        return self.entry.user

    @property
    def paired_no_more(self) -> bool:
        return self.standing.withdrawn or self.abandons >= 2


@dataclass
class Section:
    """The standings of a round robin's section (or of the whole Swiss: one section, no
    letter), and a round robin's crosstable."""

    letter: str
    rows: list[Row]
    crosstable: Crosstable | None = None
    games: list[Game] = field(default_factory=list)

    def cells(self) -> list[tuple[Row, list[list[Fraction | None]]]]:
        """The crosstable as rows of cells (a cell: the row player's results against the
        column player's, one per game they shared; None while it goes on)."""
        if self.crosstable is None:
            return []
        ids = [row.entry.user_id for row in self.rows]
        return [
            (row, [list(self.crosstable.cell(row.entry.user_id, column)) for column in ids])
            for row in self.rows
        ]


@dataclass
class Reading:
    """A tournament read once for a page or a change: its entrants, games and standings."""

    tournament: Tournament
    entries: list[Entry]
    games: list[Game]
    sections: list[Section]

    @property
    def rows(self) -> list[Row]:
        return [row for section in self.sections for row in section.rows]

    def row_of(self, user_id: int) -> Row | None:
        return next((row for row in self.rows if row.entry.user_id == user_id), None)


def read(tournament: Tournament) -> Reading:
    """The standings (per section in a round robin) recounted from the games."""
    entries = entries_of(tournament)
    games = games_of(tournament) if tournament.started_at else []
    walked = abandons(games)
    given = byes(tournament) if tournament.is_swiss and tournament.started_at else Counter()
    withdrawn = {entry.user_id for entry in entries if entry.withdrawn_at is not None}
    groups: dict[int | None, list[Entry]] = {}
    for entry in entries:
        key = entry.section if not tournament.is_swiss else None
        groups.setdefault(key, []).append(entry)
    sections = []
    for key in sorted(groups, key=lambda k: -1 if k is None else k):
        members = groups[key]
        ids = {entry.user_id for entry in members}
        by_id = {entry.user_id: entry for entry in members}
        own = [game for game in games if {s.user_id for s in game.seats.all()} <= ids]
        records = [record(game) for game in own]
        ranked = standings(
            [entry.user_id for entry in members],
            records,
            tournament.points,
            byes={user_id: given[user_id] for user_id in ids if given[user_id]},
            bye_points=tournament.bye_value,
            withdrawn=withdrawn & ids,
        )
        rows = [Row(by_id[s.player], s, walked[s.player]) for s in ranked]
        table = None
        if not tournament.is_swiss:
            table = crosstable([row.entry.user_id for row in rows], records)
        letter = by_id[members[0].user_id].section_letter if key is not None else ""
        sections.append(Section(letter, rows, table, own))
    return Reading(tournament, entries, games, sections)


@dataclass
class Table:
    number: int
    game: Game

    @property
    def seats(self) -> list[Seat]:
        return list(self.game.seats.all())


@dataclass
class RoundView:
    """One round as its page shows it: its tables (each a game), and its byes."""

    round: Round
    tables: list[Table]
    byes: list[User]

    @property
    def over(self) -> bool:
        return all(table.game.is_over for table in self.tables)

    @property
    def playing(self) -> int:
        return sum(1 for table in self.tables if table.game.is_playing)


def rounds_of(tournament: Tournament, games: list[Game] | None = None) -> list[RoundView]:
    """The rounds, newest first, each with its tables in order (best table first)."""
    games = games_of(tournament) if games is None else games
    by_round: dict[int, list[Game]] = {}
    for game in games:
        by_round.setdefault(game.tournament_round_id, []).append(game)
    tables = dict(
        Pairing.objects.filter(round__tournament=tournament, game__isnull=False)
        .values_list("game_id", "table")
        .distinct()
    )
    bye_users: dict[int, list[User]] = {}
    for pairing in Pairing.objects.filter(
        round__tournament=tournament, game__isnull=True
    ).select_related("user"):
        bye_users.setdefault(pairing.round_id, []).append(pairing.user)
    out = []
    for round_ in Round.objects.filter(tournament=tournament).order_by("-number"):
        own = sorted(by_round.get(round_.pk, []), key=lambda g: (tables.get(g.pk) or 0, g.pk))
        out.append(
            RoundView(
                round_,
                [Table(tables.get(game.pk) or index + 1, game) for index, game in enumerate(own)],
                bye_users.get(round_.pk, []),
            )
        )
    return out


def timeouts_since(user: User, since) -> int:
    """How many times the player's time ran out in any game since `since`: each turn the
    server played for them (its confirmation) and each board submitted at the finishing
    deadline."""

    return Event.objects.filter(
        cause__in=[Event.Cause.TIMEOUT, Event.Cause.DEADLINE],
        kind__in=["confirm_draft", "finish"],
        created_at__gte=since,
        game__seats__user=user,
        game__seats__number=F("seat"),
    ).count()


def points_words(value: Fraction) -> str:
    """Points as a player reads them: 3, 2½, ½, 1¼."""
    whole, part = divmod(value, 1)
    fractions = {Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾"}
    if part == 0:
        return str(int(whole))
    if part in fractions:
        return f"{int(whole)}{fractions[part]}" if whole else fractions[part]
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def tournaments_of(user: User, limit: int = 10) -> list[Entry]:
    """A player's tournaments for their profile, newest first: each entry with its tournament
    (its place and points once it has finished); those called off are left out."""
    return list(
        Entry.objects.filter(user=user)
        .exclude(tournament__status=Tournament.Status.CANCELLED)
        .select_related("tournament")
        .order_by("-tournament__starts_at")[:limit]
    )
