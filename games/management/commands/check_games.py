"""Check that every game's rows are what its event log replays to: run it after restoring a
backup (docs/deploy.md, "Backups"), or whenever a database is in doubt.

    python3 manage.py check_games            # every game
    python3 manage.py check_games --game 17  # only these

Each started game's log is folded by the rules engine and compared with its stored state, its
results and its rating changes (games/history/integrity.py). Prints each mismatch as it is found
and a summary; exits 1 if any game does not match.
"""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from games.history.integrity import BATCH, check_games


class Command(BaseCommand):
    help = "Replay every game from its event log and compare it with its stored state."

    def add_arguments(self, parser):
        parser.add_argument(
            "--game", type=int, action="append", dest="games", help="check only this game"
        )
        parser.add_argument(
            "--batch", type=int, default=BATCH, help=f"games read at once (default {BATCH})"
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, games, batch, database, **options):
        if batch < 1:
            raise CommandError("--batch must be 1 or more")
        started = time.monotonic()
        checked = check_games(
            games, batch=batch, using=database, found=lambda m: self.stdout.write(str(m))
        )
        seconds = time.monotonic() - started
        statuses = ", ".join(f"{count} {status}" for status, count in sorted(checked.games.items()))
        summary = (
            f"{checked.count} games ({statuses or 'none'}) and {checked.events} events checked "
            f"in {seconds:.1f} s"
        )
        if checked.mismatches:
            wrong = len({mismatch.game_id for mismatch in checked.mismatches})
            raise CommandError(f"{summary}: {wrong} do not match their event log (above).")
        self.stdout.write(f"{summary}: every game is what its event log replays to.")
