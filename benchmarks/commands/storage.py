"""The storage benchmark (benchmarks/bench_storage.py): on a database that `generate`
filled, the sweep's queries with nothing due and with some games due, and the median time of the
busy player's pages, with any sequential scan of a big table in their plans. PostgreSQL.

    python -m benchmarks generate --players 50000 --ended 100000 --playing 20000 --busy 300
    python -m benchmarks storage --runs 30 --due 100
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from benchmarks import bench_storage as bench


class Command(BaseCommand):
    help = "Time the sweep and the history pages on a database of many generated games."

    def add_arguments(self, parser):
        parser.add_argument("--runs", type=int, default=20, help="timed runs of each")
        parser.add_argument("--due", type=int, default=100, help="games made due for the sweep")
        parser.add_argument("--player", default=bench.BUSY_PLAYER, help="whose pages")
        parser.add_argument("--no-explain", action="store_true", help="skip the plans")

    def handle(self, *args, runs, due, player, no_explain, **options):
        if runs < 1 or due < 0:
            raise CommandError("Need --runs >= 1 and --due >= 0.")
        explain = not no_explain and connection.vendor == "postgresql"
        counts = ", ".join(f"{count} {what}" for what, count in bench.counts().items())
        self.stdout.write(f"stored: {counts}")
        for label, made_due in (("nothing due", 0), (f"{due} games due", due)):
            if made_due or label == "nothing due":
                self.stdout.write(f"sweep, {label}:")
                for line in bench.report(bench.time_sweep(runs, made_due, explain)):
                    self.stdout.write(line)
        self.stdout.write(f"pages of {player}:")
        timings = bench.time_pages(runs, explain, player)
        for line in bench.report(timings):
            self.stdout.write(line)
        scans = sum(len(t.seq_scans) for t in timings)
        self.stdout.write(f"sequential scans of big tables in the pages' plans: {scans}")
