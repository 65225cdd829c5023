"""Move a rules GameState in and out of rows: the pool on the Game, each board and tray on its
Seat. The rules package checks the state on the way in (GameState.from_json validates it)."""

import contextlib

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from games.models import Game, Seat
from games.rules import GameState
from games.rules.state import FORMAT
from infra.selects import Columns, Select, row_by_pk, table_name

User = get_user_model()

GAME_STATE_FIELDS = ["pool", "phase", "current_seat", "pending_draft", "drafts"]
SEAT_STATE_FIELDS = ["tray", "board", "colours", "finished", "undo", "redo", "left_turn"]


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
            "undo": [seat.undo for seat in seats],
            "redo": [seat.redo for seat in seats],
            "strict_finish": game.strict_finish,
            "left": [seat.left_turn for seat in seats],
            "layout": game.layout,
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
            "undo": data["undo"][seat.number],
            "redo": data["redo"][seat.number],
            "left_turn": data["left"][seat.number],
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


def _seats_joined(connection, *, with_game: bool):
    """The seats of a game, in seat order, with their users (and their game and its creator)."""
    quote = connection.ops.quote_name
    seat = Columns(Seat, "seat", connection, 0)
    parts = [seat]
    joins = []
    if with_game:
        game = Columns(Game, "game", connection, seat.end)
        creator = Columns(User, "creator", connection, game.end)
        parts += [game, creator]
        joins += [
            f"INNER JOIN {table_name(Game, connection)} {quote('game')} "
            f"ON {quote('game')}.{quote(Game._meta.pk.column)} = "
            f"{quote('seat')}.{quote(Seat._meta.get_field('game').column)}",
            f"INNER JOIN {table_name(User, connection)} {quote('creator')} "
            f"ON {quote('creator')}.{quote(User._meta.pk.column)} = "
            f"{quote('game')}.{quote(Game._meta.get_field('created_by').column)}",
        ]
    user = Columns(User, "player", connection, parts[-1].end)
    parts.append(user)
    joins.append(
        f"INNER JOIN {table_name(User, connection)} {quote('player')} "
        f"ON {quote('player')}.{quote(User._meta.pk.column)} = "
        f"{quote('seat')}.{quote(Seat._meta.get_field('user').column)}"
    )
    sql = (
        f"SELECT {', '.join(part.sql for part in parts)} "
        f"FROM {table_name(Seat, connection)} {quote('seat')} {' '.join(joins)} "
        f"WHERE {quote('seat')}.{quote(Seat._meta.get_field('game').column)} = %s "
        f"ORDER BY {quote('seat')}.{quote(Seat._meta.get_field('number').column)} ASC"
    )
    return sql, tuple(parts)


def _game_locked(connection):
    sql, game = row_by_pk(Game, "game", connection)
    if connection.features.has_select_for_update:  # SQLite locks the whole database instead
        sql += " FOR UPDATE"
    return sql, (game,)


# A game's seats with the game (and its creator) and their users: one statement, one moment.
_seats_with_game = Select(lambda connection: _seats_joined(connection, with_game=True))


def read_game(game_id: int) -> tuple[Game, list[Seat]]:
    """Return a game and its seats (in seat order, with their users) as of one moment."""
    # One statement sees one moment by itself: the seats joined with their game and users.
    rows, columns, db = _seats_with_game.rows(game_id)
    if rows:
        seat_columns, game_columns, creator_columns, user_columns = columns
        using = db.alias
        game = game_columns.make(using, db, rows[0])
        game.created_by = creator_columns.make(using, db, rows[0])
        seats = []
        for row in rows:
            seat = seat_columns.make(using, db, row)
            seat.game = game
            seat.user = user_columns.make(using, db, row)
            seats.append(seat)
        return game, seats
    with snapshot():  # a table nobody sits at any more
        game = Game.objects.select_related("created_by").get(pk=game_id)
        return game, list(game.seats.select_related("user").order_by("number"))


def current_version(game_id: int) -> int | None:
    """The game's version now (None: there is no such game)."""
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first()


# The reads of every change, written once.
_locked_game = Select(_game_locked)
_seats_with_users = Select(lambda connection: _seats_joined(connection, with_game=False))


def _game_and_seats_locked(connection):
    """The game with its seats in seat order and their users; on PostgreSQL the game row and
    the seat rows locked (`FOR UPDATE OF` both, the game first, as every change locks it first:
    the users are read, not locked)."""
    quote = connection.ops.quote_name
    game = Columns(Game, "game", connection, 0)
    seat = Columns(Seat, "seat", connection, game.end)
    user = Columns(User, "player", connection, seat.end)
    sql = (
        f"SELECT {game.sql}, {seat.sql}, {user.sql} "
        f"FROM {table_name(Game, connection)} {quote('game')} "
        f"INNER JOIN {table_name(Seat, connection)} {quote('seat')} "
        f"ON {quote('seat')}.{quote(Seat._meta.get_field('game').column)} = "
        f"{quote('game')}.{quote(Game._meta.pk.column)} "
        f"INNER JOIN {table_name(User, connection)} {quote('player')} "
        f"ON {quote('player')}.{quote(User._meta.pk.column)} = "
        f"{quote('seat')}.{quote(Seat._meta.get_field('user').column)} "
        f"WHERE {quote('game')}.{quote(Game._meta.pk.column)} = %s "
        f"ORDER BY {quote('seat')}.{quote(Seat._meta.get_field('number').column)} ASC"
    )
    if connection.features.has_select_for_update_of:  # SQLite locks the whole database instead
        sql += f" FOR UPDATE OF {quote('game')}, {quote('seat')}"
    return sql, (game, seat, user)


_locked_game_and_seats = Select(_game_and_seats_locked)


def lock_game_and_seats(game_id) -> tuple[Game | None, list[Seat]]:
    """Return the game row and its seats in seat order (with their users), locked until the end
    of the transaction, or (None, []) if there is no such game: one statement for a game in
    play. Raises ValueError or TypeError for what is not an id.

    Why one statement is safe once the game has started, under PostgreSQL's READ COMMITTED: a
    `FOR UPDATE` that waited for another change gets the newest committed version of every row
    it locks (the game and each seat), but only the rows its snapshot saw: a seat inserted by
    the change it waited for is missing. Seats come and go only while a table waits for
    players, and its last join starts the game with `player_count` seats; so the seats read are
    trusted only when the game, as it is now, has started and has all of them. Otherwise (a
    table still waiting, or one nobody sits at) the game is locked by then, and its seats are
    read again by a second statement, which sees every committed seat."""
    rows, columns, db = _locked_game_and_seats.rows(game_id)
    if not rows:  # no such game, or no seat to join (nothing locked yet)
        game = lock_game(game_id)
        return game, seats_in_order(game) if game is not None else []
    game_columns, seat_columns, user_columns = columns
    using = db.alias
    game = game_columns.make(using, db, rows[0])
    seats = []
    for row in rows:
        seat = seat_columns.make(using, db, row)
        seat.game = game
        seat.user = user_columns.make(using, db, row)
        seats.append(seat)
    # A locking read that waited may return rows out of its ORDER BY (PostgreSQL's SELECT).
    seats.sort(key=lambda seat: seat.number)
    if game.is_waiting or len(seats) != game.player_count:
        return game, seats_in_order(game)
    return game, seats


def lock_game(game_id) -> Game | None:
    """Return the game row, locked until the end of the transaction (`SELECT ... FOR UPDATE`;
    SQLite's IMMEDIATE transaction locks the whole database instead), or None if there is no
    such game. Raises ValueError or TypeError for what is not an id."""
    rows, columns, db = _locked_game.rows(game_id)
    if not rows:
        return None
    (game_columns,) = columns
    return game_columns.make(db.alias, db, rows[0])


def seats_in_order(game: Game) -> list[Seat]:
    """Return the game's seats in seat order, with their users, each pointing at `game`."""
    rows, columns, db = _seats_with_users.rows(game.pk)
    seats = []
    if rows:
        seat_columns, user_columns = columns
        for row in rows:
            seat = seat_columns.make(db.alias, db, row)
            seat.game = game
            seat.user = user_columns.make(db.alias, db, row)
            seats.append(seat)
    return seats
