"""Start the whole platform: daphne (HTTP and websockets), Celery workers and one Celery beat.

With ``--web N`` the listening socket is bound once, here, and handed to each of the N daphne
processes (``daphne --fd``): they all accept connections on the one address, and the kernel gives
each new connection to whichever process takes it first. No proxy sits in between, and every
process is the same, since no state lives in one process's memory (README, "Production layout").
``--workers N`` starts N Celery worker processes; there is always exactly one beat.

With ``--http N`` gunicorn also serves the site's HTTP on ``--http-port``, from N WSGI worker
processes, and daphne's event loop is left to the websockets: under load a move's round trip
takes half the time it takes when daphne runs the view in a thread handed over from that loop.
A reverse proxy in front sends ``/ws/`` to ``--port`` and the rest to ``--http-port`` (README,
"Production layout").
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from microchip_site.services import redis_for_this_run


def at_least_one(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def is_ipv6(host: str) -> bool:
    return ":" in host.strip("[]")


def listening_socket(host: str, port: int, backlog: int = 1024) -> socket.socket:
    """Bind and listen on (host, port) over IPv4; the socket can be passed to child processes."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def gunicorn_command(host: str, port: int, workers: int) -> list[str]:
    """The gunicorn command line that serves the site's HTTP with `workers` WSGI processes."""
    bind = f"[{host.strip('[]')}]:{port}" if is_ipv6(host) else f"{host}:{port}"
    return [sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(workers),
            "microchip_site.wsgi:application"]  # fmt: skip


def daphne_command(sock: socket.socket) -> list[str]:
    """The daphne command line that serves the app on an inherited listening socket."""
    return [sys.executable, "-m", "daphne", "--fd", str(sock.fileno()),
            "microchip_site.asgi:application"]  # fmt: skip


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
        if web > 1 and is_ipv6(host):
            raise CommandError("--web above 1 needs an IPv4 --host (e.g. 0.0.0.0)")
        if http < 0:
            raise CommandError("--http must be 0 or more")
        http_port = port + 1 if http_port is None else http_port
        if http and http_port == port:
            raise CommandError("--http-port must differ from --port")
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
            processes = self._start(child_env, host, port, web, workers, http, http_port)
            name = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
            if is_ipv6(name):
                name = f"[{name.strip('[]')}]"
            url = f"http://{name}:{port}/"
            self.stdout.write(self.style.SUCCESS(f"Microchip Online is running at {url}"))
            if http:
                self.stdout.write(
                    f"HTTP also from {http} gunicorn process{'es' if http > 1 else ''} on port "
                    f"{http_port}: put a proxy in front that sends /ws/ to port {port}."
                )
            self.stdout.write(
                f"{web} web process{'es' if web > 1 else ''} (daphne), "
                f"{workers} worker{'s' if workers > 1 else ''}, 1 beat. Press Ctrl+C to stop."
            )
            try:
                self._watch(processes)
            finally:
                self._stop(processes)

    def _start(self, env, host, port, web, workers, http=0, http_port=None):
        python = sys.executable
        beat_schedule = str(settings.VAR_DIR / "celerybeat-schedule")
        sock = None
        if is_ipv6(host):
            # daphne's --fd adopts IPv4 sockets only: one process binds the address itself.
            bind = ["-b", host.strip("[]"), "-p", str(port)]
            commands = {"web 1": [python, "-m", "daphne", *bind, "microchip_site.asgi:application"]}
        else:
            try:
                sock = listening_socket(host, port)
            except OSError as error:
                raise CommandError(f"Cannot listen on {host}:{port}: {error}") from None
            commands = {f"web {n}": daphne_command(sock) for n in range(1, web + 1)}
        if http:
            commands["http"] = gunicorn_command(host, http_port, http)
        for n in range(1, workers + 1):
            commands[f"worker {n}"] = [
                python, "-m", "celery", "-A", "microchip_site", "worker",
                "--loglevel=INFO", "--concurrency=2", "--hostname", f"worker{n}@%h",
            ]  # fmt: skip
        commands["beat"] = [python, "-m", "celery", "-A", "microchip_site", "beat",
                            "--loglevel=INFO", "--schedule", beat_schedule]  # fmt: skip
        processes = {}
        try:
            for name, command in commands.items():
                # Only the daphne processes get the listening socket.
                fds = [sock.fileno()] if sock is not None and name.startswith("web") else []
                processes[name] = subprocess.Popen(
                    command, env=env, cwd=settings.BASE_DIR, pass_fds=fds
                )
        except BaseException:
            self._stop(processes)
            raise
        finally:
            if sock is not None:
                sock.close()  # the daphne processes hold it; the port closes when they exit
        return processes

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
