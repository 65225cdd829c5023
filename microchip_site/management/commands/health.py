"""Health checks for operators: are the Celery workers answering, is beat's clock running?

    python3 manage.py health --worker     # at least one worker answers a ping (celery inspect ping)
    python3 manage.py health --beat       # the sweep ran within the last 3 sweep intervals
    python3 manage.py health              # both, and the database

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
            "--worker", action="store_true", help="Ping the Celery workers through the broker."
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

    def handle(self, *args, worker, beat, timeout, min_workers, **options):
        everything = not (worker or beat)
        results = []
        if everything:
            results.append(self._database())
        if worker or everything:
            results.append(self._workers(timeout, min_workers))
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

    def _workers(self, timeout: float, min_workers: int) -> bool:
        redis = health.redis_ok()
        if redis is None:
            return self._report("worker", False, "no broker: REDIS_URL is not set")
        if not redis:
            return self._report("worker", False, "the broker (Redis) does not answer")
        names = health.ping_workers(celery_app, timeout)
        ok = len(names) >= min_workers
        detail = f"{len(names)} answered within {timeout:g} s"
        if names:
            detail += ": " + ", ".join(names)
        return self._report("worker", ok, detail)

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
