"""`python -m benchmarks tournament`: a whole Swiss of computer players on the platform
(benchmarks/tournament_run.py), on a throwaway database made for the run (Django's test
database of the environment's: SQLite by default, PostgreSQL with DATABASE_URL), removed after.

    nice -n 10 .venv/bin/python -m benchmarks tournament                 # 200 players, 5 rounds
    .venv/bin/python -m benchmarks tournament --players 12 --rounds 3    # a short run
"""

import logging

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import setup_databases, teardown_databases

from benchmarks import tournament_run


class Command(BaseCommand):
    help = "A whole Swiss of computer players on the platform: each round's time, the recount."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=200)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--table-size", type=int, default=4, choices=range(2, 6))
        parser.add_argument("--withdrawing", type=int, default=4, help="during round 2")

    def handle(self, *args, players, rounds, table_size, withdrawing, **options):
        if players < 2 or not 1 <= rounds <= 15 or withdrawing < 0:
            raise CommandError("Need --players >= 2, --rounds from 1 to 15, --withdrawing >= 0.")
        from microchip_site.celery import app

        # Tasks at once, in this process; emails to memory; no pause before a bot's move.
        app.conf.task_always_eager = True
        import games.tasks
        import games.tournaments.tasks  # noqa: F401

        logging.getLogger("celery").setLevel(logging.WARNING)  # a line a task, else
        settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
        settings.BOT_MOVE_DELAY = 0
        databases = setup_databases(verbosity=0, interactive=False)
        try:
            report = tournament_run.run(
                players, rounds, table_size, withdrawing=withdrawing, out=self.stdout.write
            )
        except tournament_run.CheckFailed as failed:
            raise CommandError(f"CHECK FAILED: {failed}") from None
        finally:
            teardown_databases(databases, verbosity=0)
        for line in report.lines():
            self.stdout.write(line)
