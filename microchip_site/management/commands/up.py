"""Start the whole platform: daphne (HTTP and websockets), a Celery worker and Celery beat."""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from microchip_site.services import redis_for_this_run


class Command(BaseCommand):
    help = "Migrate, then run daphne, a Celery worker and Celery beat until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--demo", action="store_true", help="Also create demo players to log in as."
        )

    def handle(self, *args, host, port, demo, **options):
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        call_command("migrate", interactive=False, verbosity=1)
        call_command("collectstatic", interactive=False, verbosity=0)
        if demo:
            call_command("demo_players")

        child_env = dict(os.environ)
        # A machine with no configuration is a developer's: show errors in the page and send
        # links over plain http. Production sets DEBUG=false (see the README).
        child_env.setdefault("DEBUG", "true")
        child_env.setdefault("SITE_URL", f"http://localhost:{port}")

        with redis_for_this_run() as redis_url:
            child_env["REDIS_URL"] = redis_url
            self.stdout.write(f"Redis: {redis_url}")
            processes = self._start(child_env, host, port)
            url = f"http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}/"
            self.stdout.write(self.style.SUCCESS(f"Microchip Online is running at {url}"))
            self.stdout.write("Press Ctrl+C to stop.")
            try:
                self._watch(processes)
            finally:
                self._stop(processes)

    def _start(self, env, host, port):
        python = sys.executable
        beat_schedule = str(settings.VAR_DIR / "celerybeat-schedule")
        commands = {
            "web": [python, "-m", "daphne", "-b", host, "-p", str(port),
                    "microchip_site.asgi:application"],
            "worker": [python, "-m", "celery", "-A", "microchip_site", "worker",
                       "--loglevel=INFO", "--concurrency=2"],
            "beat": [python, "-m", "celery", "-A", "microchip_site", "beat",
                     "--loglevel=INFO", "--schedule", beat_schedule],
        }  # fmt: skip
        return {
            name: subprocess.Popen(command, env=env, cwd=settings.BASE_DIR)
            for name, command in commands.items()
        }

    def _watch(self, processes):
        stop = {"now": False}

        def request_stop(signum, frame):
            stop["now"] = True

        signal.signal(signal.SIGTERM, request_stop)
        try:
            while not stop["now"]:
                for name, process in processes.items():
                    if process.poll() is not None:
                        self.stderr.write(f"The {name} process exited ({process.returncode}).")
                        return
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass

    def _stop(self, processes):
        self.stdout.write("Stopping ...")
        for process in processes.values():
            if process.poll() is None:
                process.terminate()
        for process in processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
