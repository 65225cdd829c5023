"""Fill a database with players and real games, for load tests and the storage benchmark.

    MICROCHIP_VAR_DIR=/tmp/bigdb python3 manage.py migrate
    MICROCHIP_VAR_DIR=/tmp/bigdb python -m benchmarks generate --games 10000
    python -m benchmarks generate --players 50000 --ended 1000000 --playing 20000 --busy 300

Every game is dealt and played by the rules engine, its whole event log stored, so
`manage.py check_games` replays each to its rows (benchmarks/generate.py says how). The rows go
in with COPY on PostgreSQL; every rating is then recomputed in the order the games ended.
"""

import time

from django.core.management.base import BaseCommand, CommandError

from benchmarks.generate import generate


class Command(BaseCommand):
    help = "Create players and real, replayable games: finished (rated), in progress, waiting."

    def add_arguments(self, parser):
        parser.add_argument(
            "--games", "--ended", type=int, default=10_000, dest="games",
            help="finished games to create",
        )  # fmt: skip
        parser.add_argument("--playing", type=int, default=0, help="games in progress to create")
        parser.add_argument("--waiting", type=int, default=0, help="tables waiting for players")
        parser.add_argument(
            "--users", "--players", type=int, default=200, dest="users",
            help="generated players to share",
        )  # fmt: skip
        parser.add_argument(
            "--busy", type=int, default=0,
            help="games of the first generated player (sim0001), a tenth of them in progress",
        )  # fmt: skip
        parser.add_argument("--seed", type=int, default=1, help="seed of every random choice")
        parser.add_argument(
            "--distinct", type=int, default=500, help="deals actually played, reused in turn"
        )
        parser.add_argument(
            "--unrated", type=float, default=0.1, help="share of unrated games (0 to 1)"
        )

    def handle(self, *args, games, playing, waiting, users, busy, seed, distinct, unrated,
               **options):  # fmt: skip
        if (
            games < 0 or playing < 0 or waiting < 0 or games + playing + waiting < 1
            or users < 5 or distinct < 1 or not 0 <= unrated <= 1 or busy < 0
        ):  # fmt: skip
            raise CommandError(
                "Need at least one game (--games, --playing, --waiting, none below 0), "
                "--users >= 5, --distinct >= 1, --unrated 0-1."
            )
        started = time.monotonic()
        created = generate(
            games=games, users=users, seed=seed, distinct=distinct, unrated=unrated,
            playing=playing, waiting=waiting, busy=busy, out=self.stdout,
        )  # fmt: skip
        seconds = time.monotonic() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"Created {len(created)} games ({games} finished, {playing} in progress, "
                f"{waiting} waiting) in {seconds:.1f} s."
            )
        )
