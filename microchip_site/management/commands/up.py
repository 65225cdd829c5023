"""Start the whole platform: daphne (HTTP and websockets), Celery workers and one Celery beat.

This command reads and checks its arguments, names the project's entry points and the steps
before the start (migrate, collectstatic, the demo players), and sets the children's
environment; infra/launcher.py locks the var directory, binds the ports, starts the processes
and keeps them running (infra/supervisor.py) until a stop signal. Everything that can be refused
is refused before any slow step.

``--web N`` daphne processes share the one address (IPv4); ``--workers N`` Celery workers; with
``--http N`` gunicorn also serves the site's HTTP on ``--http-port`` from N processes, behind a
proxy that sends ``/ws/`` to ``--port`` (README, "Production layout").
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

    def handle(self, *args, host, port, web, http, http_port, workers, demo, **options):
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

        child_env = dict(os.environ)
        # A machine with no configuration is a developer's: show errors in the page and send
        # links over plain http. Production sets DEBUG=false (see the README).
        child_env.setdefault("DEBUG", "true")
        child_env.setdefault("SITE_URL", f"http://localhost:{port}")

        prepare = [
            lambda: call_command("migrate", interactive=False, verbosity=1),
            lambda: call_command("collectstatic", interactive=False, verbosity=0),
        ]
        if demo:
            prepare.append(lambda: call_command("demo_players"))
        name = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
        if is_ipv6(name):
            name = f"[{name.strip('[]')}]"
        url = f"http://{name}:{port}/"
        announce = [self.style.SUCCESS(f"Microchip Online is running at {url}")]
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
