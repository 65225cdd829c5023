"""Health checks for operators: are the Celery workers answering, is beat's clock running?

    python3 manage.py health --worker     # at least one worker serves the games' queue
    python3 manage.py health --engine     # at least one worker serves the engine's queue
    python3 manage.py health --beat       # the sweep ran within the last 3 sweep intervals
    python3 manage.py health              # all three, and the database

The games' tasks (forced takes, bots, timeouts, emails) and the engine's (a finished game's
review, its puzzles) have queues of their own (settings.CELERY_TASK_ROUTES), so each is checked
on its own: a worker answers by saying which queues it consumes from (celery inspect
active_queues).

Exits 0 when every check asked for passes, 1 otherwise, with one line per check. Run it with
the same environment as the processes (DATABASE_URL, REDIS_URL, GAMES_SWEEP_SECONDS). The web
processes have their own check: GET /health/ (microchip_site/views.py).
"""

import time

from django.conf import settings
from django.core.management.base import BaseCommand

from infra import health
from microchip_site.celery import app as celery_app


class Command(BaseCommand):
    help = "Check the workers (--worker), beat's sweep (--beat), or everything; exit 1 on failure."

    def add_arguments(self, parser):
        parser.add_argument(
            "--worker", action="store_true", help="Ask the Celery workers of the games' queue."
        )
        parser.add_argument(
            "--engine", action="store_true", help="Ask the Celery workers of the engine's queue."
        )
        parser.add_argument(
            "--beat",
            action="store_true",
            help="Check that the sweep ran within the last 3 sweep intervals.",
        )
        parser.add_argument(
            "--timeout", type=float, default=2.0, help="Seconds to wait for workers' answers."
        )
        parser.add_argument(
            "--min-workers", type=int, default=1, help="How many workers must answer (default 1)."
        )

    def handle(self, *args, worker, engine, beat, timeout, min_workers, **options):
        everything = not (worker or engine or beat)
        results = []
        if everything:
            results.append(self._database())
        if worker or engine or everything:
            queues = [
                (name, queue, least)
                for name, queue, least, asked in (
                    ("worker", settings.CELERY_TASK_DEFAULT_QUEUE, min_workers, worker),
                    ("engine", settings.ENGINE_QUEUE, 1, engine),
                )
                if asked or everything
            ]
            results.extend(self._workers(queues, timeout))
        if beat or everything:
            results.append(self._beat())
        if not all(results):
            raise SystemExit(1)

    def _report(self, name: str, ok: bool, detail: str) -> bool:
        line = f"{name}: {'ok' if ok else 'FAILED'} ({detail})"
        self.stdout.write(self.style.SUCCESS(line) if ok else self.style.ERROR(line))
        return ok

    def _database(self) -> bool:
        ok = health.database_ok()
        return self._report("database", ok, "answers" if ok else "does not answer")

    def _workers(self, queues: list[tuple[str, str, int]], timeout: float) -> list[bool]:
        """One line per (check's name, queue, workers it needs)."""
        redis = health.redis_ok()
        if not redis:
            why = (
                "no broker: REDIS_URL is not set"
                if redis is None
                else ("the broker (Redis) does not answer")
            )
            return [self._report(name, False, why) for name, _, _ in queues]
        serving = health.workers_by_queue(celery_app, timeout)
        results = []
        for name, queue, least in queues:
            names = serving.get(queue, [])
            detail = f"{len(names)} answered within {timeout:g} s"
            if names:
                detail += ": " + ", ".join(names)
            results.append(self._report(name, len(names) >= least, detail))
        return results

    def _beat(self) -> bool:
        if not settings.REDIS_URL:  # the sweep stamps its time in the platform's Redis
            return self._report("beat", False, "no shared cache: REDIS_URL is not set")
        limit = health.sweep_max_age()
        try:
            last = health.last_sweep()
        except Exception as error:
            return self._report("beat", False, f"cannot read the cache: {error}")
        if last is None:
            return self._report("beat", False, "no sweep has run yet")
        age = time.time() - last
        times, interval = health.SWEEP_INTERVALS_ALLOWED, settings.GAMES_SWEEP_SECONDS
        detail = (
            f"last sweep {age:.0f} s ago; allowed {limit:.0f} s "
            f"({times} x GAMES_SWEEP_SECONDS={interval})"
        )
        return self._report("beat", age <= limit, detail)
