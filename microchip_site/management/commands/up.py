"""Start the whole platform: daphne (HTTP and websockets), Celery workers and one Celery beat.

This command reads and checks its arguments, names the project's entry points and the steps
before the start (migrate, collectstatic, the demo players), and sets the children's
environment; infra/launcher.py locks the var directory, binds the ports, starts the processes
and keeps them running (infra/supervisor.py) until a stop signal. Everything that can be refused
is refused before any slow step.

``--web N`` daphne processes share the one address (IPv4); ``--workers N`` Celery workers; with
``--http N`` gunicorn also serves the site's HTTP on ``--http-port`` from N processes, behind a
proxy that sends ``/ws/`` to ``--port`` (README, "Production layout").

The site runs as players see it: DEBUG off (the site's own 404 and 500 pages, nothing of its
settings or URL patterns shown to whoever types a wrong address), unless ``--debug`` or the
``DEBUG`` environment variable turns Django's debug mode on for development. With nothing
configured it serves plain http on the loopback, so its cookies are not marked Secure; it prints
one address, the site's (``SITE_URL``), and the other loopback names send the browser there
(microchip_site/canonical_host.py), so that a session and the links in its emails are for one
host.
"""

import argparse
import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from infra.launcher import Launcher, Platform, check_port, is_ipv6


def at_least_one(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def child_environment(environ, port: int, *, debug: bool = False) -> dict:
    """The environment of the processes `up` starts: `environ`, and what a machine with nothing
    configured needs. DEBUG off (as players see the site) unless `debug` or DEBUG says so; the
    site's address on the loopback (`SITE_URL`, what `up` prints and links in emails point to);
    over that plain http its cookies are not marked Secure (they would never come back)."""
    env = dict(environ)
    if debug:
        env["DEBUG"] = "true"
    env.setdefault("DEBUG", "false")
    env.setdefault("SITE_URL", f"http://localhost:{port}")
    if env["SITE_URL"].startswith("http://"):
        env.setdefault("SESSION_COOKIE_SECURE", "false")
        env.setdefault("CSRF_COOKIE_SECURE", "false")
    return env


class Command(BaseCommand):
    help = "Migrate, then run daphne, Celery workers and Celery beat until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--web",
            type=at_least_one,
            default=1,
            help="daphne processes sharing the one address (about one per CPU core; IPv4).",
        )
        parser.add_argument(
            "--http",
            type=int,
            default=0,
            metavar="N",
            help="Also serve HTTP from N gunicorn processes on --http-port, behind a proxy that "
            "sends /ws/ to --port (two or three per core).",
        )
        parser.add_argument(
            "--http-port", type=int, default=None, help="gunicorn's port (default: --port + 1)."
        )
        parser.add_argument(
            "--workers", type=at_least_one, default=1, help="Celery worker processes."
        )
        parser.add_argument(
            "--demo", action="store_true", help="Also create demo players to log in as."
        )
        parser.add_argument(
            "--debug",
            action="store_true",
            help="Django's debug mode, for development (its error pages show the settings and "
            "the URL patterns): never where players reach the site. DEBUG=true does the same.",
        )

    def handle(self, *args, host, port, web, http, http_port, workers, demo, debug, **options):
        # Everything that can be refused is refused here, before any slow step.
        check_port("--port", port)
        if web > 1 and is_ipv6(host):
            raise CommandError("--web above 1 needs an IPv4 --host (e.g. 0.0.0.0)")
        if http < 0:
            raise CommandError("--http must be 0 or more")
        http_port_name = "--http-port" if http_port is not None else "--http-port (--port + 1)"
        http_port = port + 1 if http_port is None else http_port
        if http:
            check_port(http_port_name, http_port)
            if http_port == port:
                raise CommandError("--http-port must differ from --port")

        child_env = child_environment(os.environ, port, debug=debug)

        prepare = [
            lambda: call_command("migrate", interactive=False, verbosity=1),
            lambda: call_command("collectstatic", interactive=False, verbosity=0),
        ]
        if demo:
            prepare.append(lambda: call_command("demo_players"))
        url = child_env["SITE_URL"].rstrip("/") + "/"
        announce = [self.style.SUCCESS(f"Microchip Online is running at {url}")]
        if child_env["DEBUG"].lower() in ("true", "1", "yes", "on"):
            announce.append(
                self.style.WARNING(
                    "DEBUG is on: Django's error pages show the settings and URL patterns. "
                    "Never let players reach the site like this."
                )
            )
        platform = Platform(
            asgi="microchip_site.asgi:application",
            wsgi="microchip_site.wsgi:application",
            celery="microchip_site",
            var_dir=settings.VAR_DIR,
            base_dir=settings.BASE_DIR,
        )
        Launcher(platform, self.stdout).run(
            host=host,
            port=port,
            web=web,
            workers=workers,
            http=http,
            http_port=http_port,
            env=child_env,
            prepare=prepare,
            announce=announce,
        )
