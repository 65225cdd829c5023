"""Move a rules GameState in and out of rows: the pool on the Game, each board and tray on its
Seat. The rules package checks the state on the way in (GameState.from_json validates it)."""

import contextlib
from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import QuerySet
from django.db.models.query import get_related_populators

from games.models import Game, Seat
from games.rules import GameState
from games.rules.state import FORMAT

GAME_STATE_FIELDS = ["pool", "phase", "current_seat", "pending_draft", "drafts"]
SEAT_STATE_FIELDS = ["tray", "board", "colours", "finished"]


def load_state(game: Game, seats: list[Seat]) -> GameState:
    """Return the rules state of a started game; `seats` are all its seats in seat order."""
    return GameState.from_json(
        {
            "format": FORMAT,
            "players": game.player_count,
            "seed": game.seed,
            "columns": game.pool["columns"],
            "removed": game.pool["removed"],
            "trays": [seat.tray for seat in seats],
            "colours": [seat.colours for seat in seats],
            "boards": [seat.board for seat in seats],
            "phase": game.phase,
            "current": game.current_seat,
            "finished": [seat.finished for seat in seats],
            "pending": game.pending_draft,
            "drafts": game.drafts,
        }
    )


def store_state(game: Game, seats: list[Seat], state: GameState) -> list[Seat]:
    """Copy `state` onto the game and seat objects (unsaved); return the seats that changed."""
    changed = store_changes(game, seats, state)
    return [seat for seat in seats if seat.number in changed]


def store_changes(game: Game, seats: list[Seat], state: GameState) -> dict[int, list[str]]:
    """Copy `state` onto the game and seat objects (unsaved); return, for each seat that
    changed (by number), the names of its fields that did, so that only those are written."""
    data = state.to_json()
    game.pool = {"columns": data["columns"], "removed": data["removed"]}
    game.phase = data["phase"]
    game.current_seat = data["current"]
    game.pending_draft = data["pending"]
    game.drafts = data["drafts"]
    changed = {}
    for seat in seats:
        values = {
            "tray": data["trays"][seat.number],
            "board": data["boards"][seat.number],
            "colours": data["colours"][seat.number],
            "finished": data["finished"][seat.number],
        }
        names = [name for name, value in values.items() if getattr(seat, name) != value]
        if names:
            for name in names:
                setattr(seat, name, values[name])
            changed[seat.number] = names
    return changed


@contextlib.contextmanager
def snapshot():
    """Read several rows as of one moment.

    A game's state spans its row and its seats' rows, and a move rewrites them together in
    one transaction; reading them with separate statements outside a transaction can mix two
    versions of the game. PostgreSQL's REPEATABLE READ (and SQLite's transactions) give every
    statement of the block the same snapshot.
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


class PreparedSelect:
    """A select of model instances that Django compiles once per process and database, then runs
    again with only its one parameter, an id, changed.

    Compiling a select with its joins (the columns of every model, the joins, the ordering)
    costs several times what SQLite or PostgreSQL takes to run it, and the reads of every move
    and every push are the same few selects. `build(value)` returns the queryset for one value
    (a game id); each call runs its SQL with the new value and makes the instances, the related
    ones of `select_related` included, as iterating the queryset would. Compiled inside the
    first call, so a `select_for_update` compiles inside its transaction. An id that is not a
    whole number raises ValueError or TypeError, as the queryset's filter would."""

    _MARK = -7_355_608_001  # stands for the parameter while the select compiles

    def __init__(self, build: Callable[[object], QuerySet]):
        self.build = build
        self.compiled: dict[str, tuple] = {}  # by database alias

    def __call__(self, value, using: str = DEFAULT_DB_ALIAS) -> list:
        value = int(value)
        if not -(2**63) <= value < 2**63:
            return []  # out of any database's range: nothing, as the queryset would find
        compiled = self.compiled.get(using) or self._compile(using)
        compiler, sql, params, slot, converters, model, start, end, names, populators = compiled
        params = list(params)
        params[slot] = value
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:  # the fields' own conversions (JSON, times), as the queryset's
            rows = compiler.apply_converters(rows, converters)
        found = []
        for row in rows:
            instance = model.from_db(using, names, row[start:end])
            for populator in populators:
                populator.populate(row, instance)
            found.append(instance)
        return found

    def _compile(self, using: str) -> tuple:
        queryset = self.build(self._MARK)
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        if list(params).count(self._MARK) != 1 or compiler.annotation_col_map:
            raise ValueError("a prepared select takes one parameter and no annotations")
        info, select = compiler.klass_info, compiler.select
        start, end = info["select_fields"][0], info["select_fields"][-1] + 1
        compiled = (
            compiler,
            sql,
            tuple(params),
            list(params).index(self._MARK),
            compiler.get_converters([column[0] for column in select[: compiler.col_count]]),
            info["model"],
            start,
            end,
            [column[0].target.attname for column in select[start:end]],
            get_related_populators(info, select, using),
        )
        self.compiled[using] = compiled
        return compiled


# A game's seats with the game (and its creator) and their users: one statement, one moment.
_seats_with_game = PreparedSelect(
    lambda game_id: (
        Seat.objects.filter(game_id=game_id)
        .select_related("game__created_by", "user")
        .order_by("number")
    )
)


def read_game(game_id: int) -> tuple[Game, list[Seat]]:
    """Return a game and its seats (in seat order, with their users) as of one moment."""
    # One statement sees one moment by itself: the seats joined with their game and users.
    seats = _seats_with_game(game_id)
    if seats:
        game = seats[0].game
        for seat in seats:
            seat.game = game
        return game, seats
    with snapshot():  # a table nobody sits at any more
        game = Game.objects.select_related("created_by").get(pk=game_id)
        return game, list(game.seats.select_related("user").order_by("number"))


# The two reads of every change, compiled once.
_locked_game = PreparedSelect(lambda game_id: Game.objects.select_for_update().filter(pk=game_id))
_seats_with_users = PreparedSelect(
    lambda game_id: Seat.objects.filter(game_id=game_id).select_related("user").order_by("number")
)


def lock_game(game_id) -> Game | None:
    """Return the game row, locked until the end of the transaction (`SELECT ... FOR UPDATE`;
    SQLite's IMMEDIATE transaction locks the whole database instead), or None if there is no
    such game. Raises ValueError or TypeError for what is not an id."""
    found = _locked_game(game_id)
    return found[0] if found else None


def seats_in_order(game: Game) -> list[Seat]:
    """Return the game's seats in seat order, with their users, each pointing at `game`."""
    seats = _seats_with_users(game.pk)
    for seat in seats:
        seat.game = game
    return seats
