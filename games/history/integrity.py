"""Whether every game's rows are what its event log says: the check after a backup is restored
(manage.py check_games, docs/deploy.md "Backups").

The event log is the game's history and the rows are its present; a move writes both in one
transaction, so they always agree. A restore that lost or mixed rows, or a row changed by hand,
shows here: each started game's log is folded by the rules engine (games/rules/replay.py, as the
replay page does) and the result compared with the stored state (the Game's pool, phase and
turn, each Seat's tray, board, colours, finish, undo/redo and leaving), and for an ended game
with each seat's score and place and the rating changes of a rated one. Games are read in
batches (three queries a batch, four with rated games ended), so a database of many games is
checked in one pass without loading it whole.
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from django.db.models import Count

from games import rules
from games.models import Event, Game, RatingChange, Seat
from games.state_store import load_state

BATCH = 500
# The stored state's parts as the rules' JSON names them, in the game's words.
GAME_PARTS = {
    "players": "number of players",
    "seed": "deal",
    "columns": "pool",
    "removed": "tiles out of the game",
    "phase": "phase",
    "current": "turn",
    "pending": "pending draft",
    "drafts": "number of drafts",
    "strict_finish": "strict finish option",
    "layout": "layout of the pool",
}
SEAT_PARTS = {
    "trays": "tray",
    "boards": "board",
    "colours": "board's colours",
    "finished": "finish",
    "undo": "undo steps",
    "redo": "redo steps",
    "left": "leaving (resigned, abandoned or expelled)",
}
RESULT_FIELDS = ("score", "place", "chip_tiles", "chip_value", "penalty_tiles")


@dataclass(frozen=True)
class Mismatch:
    game_id: int
    what: str

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.what}"


@dataclass
class Checked:
    games: Counter = field(default_factory=Counter)  # by status
    events: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(self.games.values())


def check_games(
    game_ids: Iterable[int] | None = None,
    *,
    batch: int = BATCH,
    using: str = "default",
    found: Callable[[Mismatch], None] | None = None,
) -> Checked:
    """Check every game (or those of `game_ids`); `found` is told of each mismatch at once."""
    checked = Checked()
    for games in _batches(game_ids, batch, using):
        for mismatch in check_batch(games, checked, using):
            checked.mismatches.append(mismatch)
            if found is not None:
                found(mismatch)
    return checked


def _batches(game_ids, size: int, using: str) -> Iterator[list[Game]]:
    games = Game.objects.using(using).order_by("pk")
    if game_ids is not None:
        games = games.filter(pk__in=list(game_ids))
    last = None
    while True:
        page = games if last is None else games.filter(pk__gt=last)
        found = list(page[:size])
        if not found:
            return
        yield found
        last = found[-1].pk


def check_batch(games: list[Game], checked: Checked, using: str) -> Iterator[Mismatch]:
    ids = [game.pk for game in games]
    seats = defaultdict(list)
    for seat in Seat.objects.using(using).filter(game_id__in=ids).order_by("game_id", "number"):
        seats[seat.game_id].append(seat)
    events = defaultdict(list)
    columns = ("game_id", "number", "kind", "seat", "action", "data")
    rows = Event.objects.using(using).filter(game_id__in=ids).order_by("game_id", "number")
    for row in rows.values_list(*columns):
        events[row[0]].append(row[1:])
    rated = [g.pk for g in games if g.rated and g.status == Game.Status.ENDED]
    ratings = Counter()
    if rated:
        changes = RatingChange.objects.using(using).filter(game_id__in=rated)
        for row in changes.values("game_id").annotate(count=Count("id")):
            ratings[row["game_id"]] = row["count"]
    for game in games:
        checked.games[game.status] += 1
        checked.events += len(events[game.pk])
        for what in check_game(game, seats[game.pk], events[game.pk], ratings[game.pk]):
            yield Mismatch(game.pk, what)


def check_game(game: Game, seats: list[Seat], events: list[tuple], rating_changes: int):
    """Yield what is wrong with one game (nothing when it is what its log says). `events` are
    (number, kind, seat, action, data) in order."""
    numbers = [number for number, *_ in events]
    if numbers != list(range(1, game.version + 1)):
        yield (
            f"its version is {game.version} but its event log holds {len(numbers)} events"
            + _gaps(numbers, game.version)
        )
        return
    starts = [data for _, kind, _, _, data in events if kind == "started"]
    moves = [(number, kind, seat, action) for number, kind, seat, action, _ in events if action]
    if game.status in (Game.Status.WAITING, Game.Status.CANCELLED):
        if starts or moves:
            yield f"it is {game.status} but its log has the start and {len(moves)} moves"
        return
    if len(starts) != 1:
        yield f"it is {game.status} but its log has {len(starts)} start events"
        return
    if [seat.number for seat in seats] != list(range(game.player_count)):
        yield f"it has seats {[seat.number for seat in seats]} for {game.player_count} players"
        return
    try:
        replayed = _replay(starts[0], moves)
    except _NotAllowed as error:
        yield str(error)
        return
    try:
        stored = load_state(game, seats)
    except (rules.RuleError, KeyError, TypeError, ValueError) as error:
        yield f"its stored state is not a game's state ({error})"
        return
    yield from _differences(replayed.to_json(), stored.to_json(), seats)
    yield from _ending(game, seats, replayed, rating_changes)


class _NotAllowed(Exception):
    pass


def _replay(start: dict, moves: list[tuple]) -> rules.GameState:
    """The state the log leaves, by the rules' one fold (games/rules/replay.py), each refusal
    named by the event that the fold stopped at."""
    folded = rules.states_from(start, [(seat, action) for _, _, seat, action in moves])
    try:
        state = next(folded)
    except (rules.RuleError, KeyError, TypeError) as error:
        raise _NotAllowed(f"its start event cannot deal the game ({error})") from None
    for number, kind, seat, _ in moves:
        try:
            state = next(folded)
        except (rules.RuleError, KeyError, TypeError, ValueError) as error:
            raise _NotAllowed(f"event {number} ({kind} by seat {seat}) is not allowed where "
                              f"the log before it leaves the game: {error}") from None  # fmt: skip
    return state


def _differences(replayed: dict, stored: dict, seats: list[Seat]) -> Iterator[str]:
    # A part the rules state gains later is compared too, under its JSON name.
    named = {key: key for key in replayed if key not in SEAT_PARTS} | GAME_PARTS
    for key, words in named.items():
        if replayed[key] != stored[key]:
            yield f"its {words} is not what its event log replays to"
    for key, words in SEAT_PARTS.items():
        for seat in seats:
            if replayed[key][seat.number] != stored[key][seat.number]:
                yield (
                    f"seat {seat.number}'s {words} is not what the event log replays to "
                    f"(stored {_short(stored[key][seat.number])}, "
                    f"replayed {_short(replayed[key][seat.number])})"
                )


def _ending(game: Game, seats: list[Seat], replayed: rules.GameState, rating_changes: int):
    ended = game.status == Game.Status.ENDED
    if ended != replayed.is_terminal():
        verb = "has" if replayed.is_terminal() else "has not"
        yield f"it is {game.status} but its event log {verb} ended it"
        return
    if not ended:
        return
    for result in replayed.results():
        seat = seats[result.seat]
        stored = tuple(getattr(seat, name) for name in RESULT_FIELDS)
        expected = tuple(getattr(result, name) for name in RESULT_FIELDS)
        if stored != expected:
            yield f"seat {seat.number}'s result {stored} is not the log's {expected}"
    if game.rated and rating_changes != game.player_count:
        yield (
            f"it is rated and ended but has {rating_changes} rating changes, "
            f"not {game.player_count}"
        )


def _gaps(numbers: list[int], version: int) -> str:
    expected = set(range(1, version + 1))
    missing, extra = sorted(expected - set(numbers)), sorted(set(numbers) - expected)
    parts = []
    if missing:
        parts.append(f"missing {_short(missing)}")
    if extra:
        parts.append(f"beyond the version {_short(extra)}")
    return f" ({'; '.join(parts)})" if parts else ""


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
