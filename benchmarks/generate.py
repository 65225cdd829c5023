"""Generated data for load tests and the storage benchmark: players, finished games, games in
progress and tables waiting for players (`python -m benchmarks generate`).

Every game is a real one: dealt and played by the rules engine's greedy players
(`benchmarks.simulate.play_game`) and stored as the platform stores it (the game and seat rows,
and the whole event log, so each replays: `manage.py check_games` passes on it). A game in
progress is one of those logs cut after a draft was confirmed, with the state the rules reach
there and a running clock; a waiting table has its creator and some who joined. To be quick,
`distinct` deals are played and each is reused by many games (each game keeps its own copy of
the log), and the rows go in with PostgreSQL's COPY (psycopg's `Cursor.copy`), or bulk_create
on another database. Then every rating is recomputed from scratch in the order the games ended.
"""

import json
import random
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from accounts.names import name_key
from benchmarks.simulate import play_game
from games import rules
from games.history import ratings
from games.models import Event, Game, Rating, RatingChange, Seat
from games.rules import DRAFTING, ConfirmDraft
from games.state_store import store_changes

USERNAME_PREFIX = "sim"
# Each table the generator copies into, analysed after it wrote them (the planner's figures).
TABLES = ("accounts_user", "games_game", "games_seat", "games_event", "games_rating",
          "games_ratingchange")  # fmt: skip
# Of the busy player's games (`busy`), this share is in progress.
BUSY_PLAYING_SHARE = 0.1


@dataclass(frozen=True)
class Played:
    """One simulated game: its deal, its event log and its final state."""

    players: int
    seed: int
    events: list[tuple[int, dict]]
    final: rules.GameState
    # The states a game in progress may stop at: (number of rules events played, state).
    cuts: list[tuple[int, rules.GameState]] = field(default_factory=list, compare=False)
    # The log as COPY text, without the game and its players (`_event_lines`), made once.
    lines: list[tuple[str, int | None, str, bool]] = field(default_factory=list, compare=False)


def simulate(count: int, rng: random.Random, cuts: int = 0) -> list[Played]:
    played = []
    for _ in range(count):
        players = rng.choice((2, 3, 4, 5))
        seed = rng.randrange(2**62)
        final, events = play_game(players, seed)
        log = [(seat, action.to_json()) for seat, action in events]
        played.append(Played(players, seed, log, final, _cuts(players, seed, log, cuts, rng)))
    return played


def _cuts(players: int, seed: int, log, count: int, rng: random.Random) -> list:
    """Up to `count` states of the game after a confirmed draft, where the next player has a
    draft to choose (not a forced take): where a game in progress waits for a player."""
    if not count:
        return []
    state = rules.new_game(players, seed)
    found = []
    for played, (seat, action) in enumerate(log, start=1):
        state = state.apply(action, seat)
        if (
            action["type"] == ConfirmDraft().to_json()["type"]
            and state.phase == DRAFTING
            and state.forced_action() is None
        ):
            found.append((played, state))
    return rng.sample(found, min(count, len(found)))


def make_users(count: int) -> list[int]:
    """Return the ids of `count` generated accounts (`sim0001`...), creating the missing ones."""
    names = [f"{USERNAME_PREFIX}{n:04d}" for n in range(1, count + 1)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    missing = [name for name in names if name not in existing]
    # "!" is an unusable password: these accounts cannot log in. User.save is not called by a
    # bulk write, so name_key (the look-alike check's key) is set here as save would.
    users = [User(username=name, email=f"{name}@example.invalid", password="!")
             for name in missing]  # fmt: skip
    for user in users:
        user.name_key = name_key(user.username)
    write(User, users)
    found = dict(User.objects.filter(username__in=names).values_list("username", "pk"))
    return [found[name] for name in names]


@dataclass
class Plan:
    """How many of each kind, and between whom."""

    ended: int
    playing: int = 0
    waiting: int = 0
    users: int = 200
    seed: int = 1
    distinct: int = 500
    unrated: float = 0.1
    busy: int = 0  # games of the first generated player ("the busy player"), 0: no more than any
    batch: int = 2000
    out: object = None

    def say(self, text: str) -> None:
        if self.out is not None:
            self.out.write(text)


def generate(
    *,
    games: int,
    users: int = 200,
    seed: int = 1,
    distinct: int = 500,
    unrated: float = 0.1,
    playing: int = 0,
    waiting: int = 0,
    busy: int = 0,
    batch: int = 2000,
    out=None,
) -> list[int]:
    """Create `games` finished games, `playing` in progress and `waiting` tables between `users`
    generated players; return the ids of all the games made."""
    plan = Plan(games, playing, waiting, users, seed, distinct, unrated, busy, batch, out)
    rng = random.Random(seed)
    user_ids = make_users(users)
    plan.say(f"{len(user_ids)} players")
    deals = simulate(max(1, min(distinct, games + playing)), rng, cuts=8 if playing else 0)
    now = timezone.now()
    busy_games = _busy_games(plan, rng)
    created = []
    with transaction.atomic():
        created += _ended(plan, deals, user_ids, busy_games, rng, now)
        created += _playing(plan, deals, user_ids, busy_games, rng, now)
        created += _waiting(plan, user_ids, rng, now)
        if connection.vendor != "postgresql":
            fix_created_at(created)
    rated = rerate_all()
    plan.say(f"rated {rated} games")
    analyse()
    return created


def _busy_games(plan: Plan, rng: random.Random) -> dict[str, set[int]]:
    """Which games (by their number among the ended and the playing) seat the busy player."""
    playing = min(round(plan.busy * BUSY_PLAYING_SHARE), plan.playing)
    ended = min(plan.busy - playing, plan.ended)
    return {
        "ended": set(rng.sample(range(plan.ended), ended)),
        "playing": set(rng.sample(range(plan.playing), playing)),
    }


def _seated(played: Played, user_ids, busy: bool, rng: random.Random) -> list[int]:
    seated = rng.sample(user_ids, played.players)
    if busy and user_ids[0] not in seated:
        seated[rng.randrange(played.players)] = user_ids[0]
    return seated


def _ended(plan, deals, user_ids, busy_games, rng, now) -> list[int]:
    first_end = now - timedelta(days=365)
    gap = timedelta(days=365) / max(plan.ended, 1)
    created = []
    for start in range(0, plan.ended, plan.batch):
        numbers = range(start, min(start + plan.batch, plan.ended))
        ids = reserve_ids(Game, len(numbers))
        games, seats, logs = [], [], []
        for number, pk in zip(numbers, ids, strict=True):
            played = deals[number % len(deals)]
            seated = _seated(played, user_ids, number in busy_games["ended"], rng)
            ended_at = first_end + gap * number
            started_at = ended_at - timedelta(hours=rng.randint(2, 24 * 14))
            game = _game(played, seated, rng, started_at, ended_at, plan.unrated)
            game.pk = pk
            games.append(game)
            seats += _seats(game, played, seated, rng)
            logs.append((game, played, seated))
        _write_games(games, seats, logs)
        created += [game.pk for game in games]
        plan.say(f"{len(created)} finished games")
    return created


def _playing(plan, deals, user_ids, busy_games, rng, now) -> list[int]:
    created = []
    with_cuts = [played for played in deals if played.cuts]
    for start in range(0, plan.playing, plan.batch):
        numbers = range(start, min(start + plan.batch, plan.playing))
        ids = reserve_ids(Game, len(numbers))
        games, seats, logs = [], [], []
        for number, pk in zip(numbers, ids, strict=True):
            played = with_cuts[number % len(with_cuts)]
            moves, state = rng.choice(played.cuts)
            seated = _seated(played, user_ids, number in busy_games["playing"], rng)
            game, game_seats = _game_in_progress(pk, played, seated, moves, state, rng, now)
            games.append(game)
            seats += game_seats
            logs.append((game, played, seated))
        _write_games(games, seats, logs)
        created += [game.pk for game in games]
        plan.say(f"{len(created)} games in progress")
    return created


def _waiting(plan, user_ids, rng, now) -> list[int]:
    if not plan.waiting:
        return []
    ids = reserve_ids(Game, plan.waiting)
    games, seats, events = [], [], []
    for pk in ids:
        players = rng.choice((2, 3, 4, 5))
        seated = rng.sample(user_ids, rng.randint(1, players - 1))
        created_at = now - timedelta(minutes=rng.randint(1, 60 * 24 * 7))
        game = Game(
            pk=pk, created_by_id=seated[0], player_count=players, created_at=created_at,
            time_per_move=timedelta(days=rng.choice((1, 2, 3))), rated=rng.random() >= plan.unrated,
            access=Game.Access.OPEN, invite_token=secrets.token_urlsafe(18),
            status=Game.Status.WAITING, version=len(seated),
        )  # fmt: skip
        games.append(game)
        for number, user_id in enumerate(seated):
            seats.append(Seat(game=game, user_id=user_id, number=number, joined_at=created_at))
            kind, data = ("created", {"player_count": players}) if number == 0 else ("joined", {})
            events.append(Event(game=game, number=number + 1, kind=kind, actor_id=user_id,
                                data=data, created_at=created_at))  # fmt: skip
    write(Game, games)
    write(Seat, seats)
    write(Event, events)
    plan.say(f"{len(games)} tables waiting for players")
    return ids


def _game(played: Played, seated, rng, started_at, ended_at, unrated: float) -> Game:
    final = played.final.to_json()
    return Game(
        created_by_id=seated[0],
        created_at=started_at,
        player_count=played.players,
        time_per_move=timedelta(days=rng.choice((1, 2, 3))),
        rated=rng.random() >= unrated,
        access=Game.Access.OPEN,
        invite_token=secrets.token_urlsafe(18),
        status=Game.Status.ENDED,
        version=len(played.events) + played.players + 1,
        seed=played.seed,
        pool={"columns": final["columns"], "removed": final["removed"]},
        phase=final["phase"],
        current_seat=None,
        pending_draft=None,
        drafts=final["drafts"],
        pool_version=0,
        started_at=started_at,
        ended_at=ended_at,
        turn_started_at=ended_at,
        deadline=None,
    )


def _seats(game: Game, played: Played, seated, rng) -> list[Seat]:
    final = played.final.to_json()
    results = {result.seat: result for result in played.final.results()}
    return [
        Seat(
            game=game,
            user_id=user_id,
            number=number,
            joined_at=game.created_at,
            tray=final["trays"][number],
            board=final["boards"][number],
            colours=final["colours"][number],
            finished=True,
            board_version=game.version,
            timeouts=rng.choice((0, 0, 0, 0, 0, 0, 1, 2)),
            score=results[number].score,
            place=results[number].place,
            chip_tiles=results[number].chip_tiles,
            chip_value=results[number].chip_value,
            penalty_tiles=results[number].penalty_tiles,
        )
        for number, user_id in enumerate(seated)
    ]


def _game_in_progress(pk: int, played: Played, seated, moves: int, state, rng, now):
    """A game stopped after `moves` rules events of `played`'s log, in `state`: a drafting turn
    whose time per move runs, its reminder still to come or already sent."""
    per_move = timedelta(days=rng.choice((1, 2, 3)))
    turn_started = now - per_move * rng.uniform(0, 0.9)
    started_at = turn_started - timedelta(hours=rng.randint(1, 24 * 20))
    remind_at = turn_started + per_move * 0.8
    version = moves + played.players + 1
    game = Game(
        pk=pk, created_by_id=seated[0], created_at=started_at, player_count=played.players,
        time_per_move=per_move, rated=rng.random() >= 0.1, access=Game.Access.OPEN,
        invite_token=secrets.token_urlsafe(18), status=Game.Status.PLAYING, version=version,
        seed=played.seed, pool_version=version, started_at=started_at,
        turn_started_at=turn_started, deadline=turn_started + per_move,
        remind_at=remind_at if remind_at > now else None,
    )  # fmt: skip
    seats = [Seat(game=game, user_id=user_id, number=number, joined_at=started_at,
                  board_version=version, seen_version=version)
             for number, user_id in enumerate(seated)]  # fmt: skip
    store_changes(game, seats, state)
    return game, seats


def _event_lines(played: Played) -> list[tuple[str, int | None, str, bool]]:
    """The log the platform writes (created, joined, started, then every rules action) as COPY
        text around the two parts each game fills in: the game id before, and the actor (an index
        into the seated players, or None) between `head` and `tail`, the start's data (its seats)
    after the start's tail, the time at the end."""
    if played.lines:
        return played.lines
    rows = [(1, "created", None, 0, Event.Cause.PLAYER, None, {"player_count": played.players})]
    for index in range(1, played.players):
        rows.append((len(rows) + 1, "joined", None, index, Event.Cause.PLAYER, None, {}))
    start = {"seed": played.seed, "players": played.players, "first_seat": 0, "seats": None}
    rows.append((len(rows) + 1, "started", None, None, Event.Cause.PLAYER, None, start))
    for seat, action in played.events:
        forced = action["type"] == "take_last"
        cause = Event.Cause.FORCED_TAKE if forced else Event.Cause.PLAYER
        rows.append((len(rows) + 1, action["type"], seat, None if forced else seat, cause,
                     action, {}))  # fmt: skip
    for number, kind, seat, actor, cause, action, data in rows:
        started = kind == "started"
        head = f"{number}\t{kind}\t{NULL if seat is None else seat}"
        tail = f"{cause}\t{_json(action)}\t" + ("" if started else _json(data))
        played.lines.append((head, actor, tail, started))
    return played.lines


# COPY's text format: NULL, and a JSON value with its backslashes doubled.
NULL = "\\N"


def _json(value) -> str:
    return NULL if value is None else json.dumps(value).replace("\\", "\\\\")


def _events(game: Game, played: Played, seated) -> list[Event]:
    """The log the platform writes: created, joined, started, then every rules action; all
    of it, or as far as the game has gone."""
    events = [Event(game=game, number=1, kind="created", actor_id=seated[0],
                    data={"player_count": played.players})]  # fmt: skip
    for user_id in seated[1:]:
        events.append(Event(game=game, number=len(events) + 1, kind="joined", actor_id=user_id))
    start = {"seed": played.seed, "players": played.players, "first_seat": 0, "seats": seated}
    events.append(Event(game=game, number=len(events) + 1, kind="started", data=start))
    for seat, action in played.events[: game.version - len(events)]:
        forced = action["type"] == "take_last"
        events.append(
            Event(
                game=game,
                number=len(events) + 1,
                kind=action["type"],
                seat=seat,
                actor_id=None if forced else seated[seat],
                cause=Event.Cause.FORCED_TAKE if forced else Event.Cause.PLAYER,
                action=action,
            )
        )
    for event in events:
        event.created_at = game.started_at
    return events


def _write_games(games: list[Game], seats: list[Seat], logs) -> None:
    write(Game, games)
    write(Seat, seats)
    if connection.vendor != "postgresql":
        write(Event, [event for log in logs for event in _events(*log)])
        return
    columns = "game_id, number, kind, seat, actor_id, cause, action, data, created_at"
    with _copy(f"COPY games_event ({columns}) FROM STDIN") as copy:
        for game, played, seated in logs:
            start = {"seed": played.seed, "players": played.players, "first_seat": 0,
                     "seats": seated}  # fmt: skip
            data = _json(start)
            actors = [str(user_id) for user_id in seated]
            when = game.started_at.isoformat()
            copy.write(
                "".join(
                    f"{game.pk}\t{head}\t{NULL if actor is None else actors[actor]}\t"
                    f"{tail}{data if started else ''}\t{when}\n"
                    for head, actor, tail, started in _event_lines(played)[: game.version]
                )
            )


# --- writing rows ------------------------------------------------------------------------------


def write(model, objects: list) -> None:
    """Insert `objects` as they are (their primary keys when set): COPY on PostgreSQL."""
    if not objects:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objects, batch_size=1000)
        return
    fields = [
        f for f in model._meta.concrete_fields if not (f.primary_key and objects[0].pk is None)
    ]
    for f in fields:  # as a save would: auto_now_add and the fields' defaults
        if getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False):
            now = timezone.now()
            for obj in objects:
                if getattr(obj, f.attname) is None:
                    setattr(obj, f.attname, now)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    with _copy(f"COPY {model._meta.db_table} ({columns}) FROM STDIN") as copy:
        for obj in objects:
            copy.write_row(
                [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]
            )


def _copy(statement: str):
    connection.ensure_connection()
    return _Copy(statement)


class _Copy:
    def __init__(self, statement: str):
        self.statement = statement

    def __enter__(self):
        self.cursor = connection.connection.cursor()
        self.copy = self.cursor.copy(self.statement)
        return self.copy.__enter__()

    def __exit__(self, *exc):
        try:
            return self.copy.__exit__(*exc)
        finally:
            self.cursor.close()


def reserve_ids(model, count: int) -> list[int]:
    """Ids for `count` new rows of `model`, taken from its sequence at once on PostgreSQL."""
    if connection.vendor != "postgresql":
        last = model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        return list(range(last + 1, last + count + 1))
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence(%s, 'id'), "
            "nextval(pg_get_serial_sequence(%s, 'id')) + %s - 1)",
            [table, table, count],
        )
        (last,) = cursor.fetchone()
    return list(range(last - count + 1, last + 1))


# --- ratings and statistics --------------------------------------------------------------------


def rerate_all() -> int:
    """Every rating recomputed from scratch in the order the games ended (ratings.rate_in_order),
    written as a copy; return how many games were rated."""
    seats = (
        Seat.objects.filter(game__status=Game.Status.ENDED, game__rated=True)
        .order_by("game__ended_at", "game_id", "number")
        .values_list("game_id", "game__ended_at", "user_id", "place")
    )
    games: list[ratings.Finished] = []
    for game_id, ended_at, user_id, place in seats.iterator(chunk_size=20000):
        if not games or games[-1].game_id != game_id:
            games.append(ratings.Finished(game_id, ended_at, [], []))
        games[-1].user_ids.append(user_id)
        games[-1].places.append(place)
    games = [game for game in games if len(game.user_ids) >= 2 and None not in game.places]
    new_ratings, changes = ratings.rate_in_order(games)
    # TRUNCATE is refused inside a transaction that already wrote rows with deferred foreign
    # keys (a test's, or a caller's): DELETE there.
    truncate = connection.vendor == "postgresql" and not connection.in_atomic_block
    with transaction.atomic():
        if truncate:
            with connection.cursor() as cursor:
                cursor.execute("TRUNCATE games_ratingchange, games_rating")
        else:
            RatingChange.objects.all().delete()
            Rating.objects.all().delete()
        write(Rating, new_ratings)
        for start in range(0, len(changes), 50_000):
            write(RatingChange, changes[start : start + 50_000])
    return len(games)


def analyse() -> None:
    """Give the planner its figures for the tables just filled (autovacuum would, later)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {', '.join(TABLES)}")


def fix_created_at(ids: list[int]) -> None:
    """bulk_create stamps created_at now (auto_now_add): put it at the start instead."""
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        Game.objects.filter(pk__in=chunk, started_at__isnull=False).update(
            created_at=F("started_at")
        )
