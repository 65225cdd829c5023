"""A backup restored, as docs/deploy.md ("Backups") says: `pg_dump -Fc` of a database with games
of every kind, `pg_restore` into a fresh database, `manage.py migrate` (nothing to do), then
`manage.py check_games` replays every game from its event log to its stored state; and it
fails, naming the game, when a row of the restored copy was changed without an event.

PostgreSQL only (CI runs it): pg_dump and pg_restore of the server's major version, from
Debian's postgresql package, as .ci/run finds them."""

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from psycopg.types.json import Jsonb

from games.models import Event, Seat

from .games import games_of_every_kind

pytestmark = [
    pytest.mark.servers,
    pytest.mark.django_db(transaction=True),  # pg_dump sees only what is committed
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="PostgreSQL only (CI)"
    ),
]


def client_programs() -> Path | None:
    """The directory of pg_dump and pg_restore for the server's major version (a newer one can
    read an older server too), or None."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int / 10000")
        (major,) = cursor.fetchone()
    found = sorted(
        (int(path.parent.name), path)
        for path in Path("/usr/lib/postgresql").glob("*/bin")
        if path.parent.name.isdigit() and (path / "pg_restore").exists()
    )
    return next((path for version, path in found if version >= major), None)


def libpq(database: str) -> dict:
    """The test database's server, as libpq's command-line options and environment."""
    db = settings.DATABASES["default"]
    options = ["-h", db["HOST"] or "localhost", "-p", str(db["PORT"] or 5432)]
    if db.get("USER"):
        options += ["-U", db["USER"]]
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    return {"options": [*options, "-d", database], "env": env}


def database_url(database: str) -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    at = "@" if user else ""
    return f"postgres://{user}{password}{at}{db['HOST']}:{db['PORT'] or 5432}/{database}"


def manage(database: str, tmp_path, *args) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(database),
        "SECRET_KEY": settings.SECRET_KEY,
        "MICROCHIP_VAR_DIR": str(tmp_path / "var"),
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def fresh_database():
    """An empty database on the test database's server, dropped at the end."""
    name = f"{connection.settings_dict['NAME']}_restored_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    yield name
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_dump_restored_into_a_fresh_database_replays_every_game(
    start_game, players, tmp_path, fresh_database
):
    programs = client_programs()
    if programs is None:
        pytest.skip("no pg_dump/pg_restore for this server in /usr/lib/postgresql/*/bin")
    games = games_of_every_kind(start_game, players)
    events = Event.objects.count()

    dump = tmp_path / "microchip.dump"
    source = libpq(connection.settings_dict["NAME"])
    subprocess.run(
        [programs / "pg_dump", "-Fc", "-f", dump, *source["options"]],
        env=source["env"],
        check=True,
        timeout=120,
    )
    target = libpq(fresh_database)
    subprocess.run(
        [programs / "pg_restore", "--no-owner", "--no-privileges", *target["options"], dump],
        env=target["env"],
        check=True,
        timeout=120,
    )

    migrated = manage(fresh_database, tmp_path, "migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr
    assert "No migrations to apply." in migrated.stdout, migrated.stdout
    checked = manage(fresh_database, tmp_path, "check_games")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert re.fullmatch(
        rf"4 games \(1 cancelled, 1 ended, 1 playing, 1 waiting\) and {events} events checked "
        r"in [\d.]+ s: every game is what its event log replays to\.\n",
        checked.stdout,
    ), checked.stdout

    # A tile of the restored copy turned by hand, without an event: the check says where.
    ended = games["ended"]
    with psycopg.connect(database_url(fresh_database)) as db:
        seat_id, board = db.execute(
            f"SELECT id, board FROM {Seat._meta.db_table} WHERE game_id = %s AND number = 1",
            [ended.pk],
        ).fetchone()
        space = next(number for number, cell in enumerate(board) if cell is not None)
        board[space] = [board[space][0], (board[space][1] + 1) % 4]
        db.execute(
            f"UPDATE {Seat._meta.db_table} SET board = %s WHERE id = %s", [Jsonb(board), seat_id]
        )

    checked = manage(fresh_database, tmp_path, "check_games")
    assert checked.returncode == 1
    assert checked.stdout.startswith(
        f"game {ended.pk}: seat 1's board is not what the event log replays to"
    ), checked.stdout
    assert "1 do not match their event log" in checked.stderr, checked.stderr
