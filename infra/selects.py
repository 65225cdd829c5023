"""Statements written once from the models' public metadata (their tables and concrete columns),
then run with only their parameters changed: for the reads and writes that every move, push or
request makes, where compiling the equivalent queryset on every call costs several times the
CPU of running it (games/state_store.py, games/move_log.py, games/seen.py, accounts/models.py;
issue 36). Everything else goes through the ORM."""

from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Expression


def table_name(model, connection) -> str:
    """The model's table, quoted for `connection`."""
    return connection.ops.quote_name(model._meta.db_table)


def row_by_pk(model, alias: str, connection) -> tuple[str, "Columns"]:
    """The select of one row of `model` (every concrete column, under `alias`) by its primary
    key (one %s), and its `Columns`."""
    quote = connection.ops.quote_name
    columns = Columns(model, alias, connection, 0)
    sql = (
        f"SELECT {columns.sql} FROM {table_name(model, connection)} {quote(alias)} "
        f"WHERE {quote(alias)}.{quote(model._meta.pk.column)} = %s"
    )
    return sql, columns


class Columns:
    """The concrete columns of one model in a select, under a table alias, and how to make an
    instance of them: `Model.from_db` with the values converted as a queryset converts them
    (JSON decoded, SQLite's times made aware and its durations made timedeltas), through each
    field's and the backend's converters, as Django's own database cache reads its raw rows."""

    def __init__(self, model, alias: str, connection, start: int):
        self.model = model
        fields = model._meta.concrete_fields
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{quote(alias)}.{quote(field.column)}" for field in fields)
        self.names = [field.attname for field in fields]
        self.start, self.end = start, start + len(fields)
        self.converters = []
        for index, field in enumerate(fields):
            expression = Expression(output_field=field)
            found = connection.ops.get_db_converters(expression)
            found += expression.get_db_converters(connection)
            if found:
                self.converters.append((index, expression, found))

    def make(self, using: str, connection, row):
        values = row[self.start : self.end]
        if self.converters:
            values = list(values)
            for index, expression, converters in self.converters:
                value = values[index]
                for converter in converters:
                    value = converter(value, expression, connection)
                values[index] = value
        return self.model.from_db(using, self.names, values)


def _whole_numbers(values) -> list[int] | None:
    """`values` as whole numbers (ValueError or TypeError for one that is not, as a queryset's
    filter would say), or None if one is out of any database's range (it matches nothing)."""
    values = [int(value) for value in values]
    if not all(-(2**63) <= value < 2**63 for value in values):
        return None
    return values


class Select:
    """One select written from the models' public metadata (their tables and concrete columns)
    once per process and database alias, then run with only its parameters, whole numbers (a
    game's id, an event's number), changed.

    Kept beside the ORM because compiling the equivalent querysets on every call costs several
    times the CPU of running them. Measured in one process on PostgreSQL and Redis on the shared
    2-core machine (CPU per call, benchmarks/loadtest/inprocess.py and a queryset loop of
    3,000): the seats joined with their game, its creator and their users 0.42-0.64 ms this way
    (0.54-0.61 ms with the compiler-internals select it replaced) against 2.6-2.9 ms as a
    queryset with select_related; the locked game and its seats in a transaction 0.89-1.25 ms
    (0.81-1.19 ms before) against 3.3-3.6 ms. Every move reads the locked game and its seats,
    and each daphne process holding the game's sockets reads the joined seats once per
    version: the ORM would add some 2.5 ms of CPU per move in gunicorn and as much per daphne
    process. `build(connection)` returns the SQL (with a %s for each parameter) and the
    `Columns` of each model in the order of the row; `rows(*values)` runs it, and each
    `Columns` makes its instance of a row."""

    def __init__(self, build: Callable):
        self.build = build
        self.built: dict[str, tuple] = {}  # by database alias

    def rows(self, *values, using: str = DEFAULT_DB_ALIAS) -> tuple[list, tuple, object]:
        """Run the select for its parameters: (rows, the columns of each model, the
        connection). A parameter that is not a whole number raises ValueError or TypeError, as
        a queryset's filter would; one out of any database's range finds nothing."""
        values = _whole_numbers(values)
        if values is None:
            return [], (), None
        db = connections[using]
        built = self.built.get(using)
        if built is None:
            # The converters are the first connection's of the alias: every connection of an
            # alias has the same backend and time zone.
            built = self.built[using] = self.build(db)
        sql, columns = built
        with db.cursor() as cursor:
            cursor.execute(sql, values)
            return cursor.fetchall(), columns, db


class Update:
    """An UPDATE written once per process and database alias, like `Select`, run with only its
    parameters, whole numbers, changed: `build(connection)` returns its SQL (a %s for each
    parameter), `run(*values)` the number of rows it changed."""

    def __init__(self, build: Callable):
        self.build = build
        self.built: dict[str, str] = {}  # by database alias

    def run(self, *values, using: str = DEFAULT_DB_ALIAS) -> int:
        values = _whole_numbers(values)
        if values is None:
            return 0
        db = connections[using]
        sql = self.built.get(using)
        if sql is None:
            sql = self.built[using] = self.build(db)
        with db.cursor() as cursor:
            cursor.execute(sql, values)
            return cursor.rowcount
