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

Before anything slow (migrate, collectstatic, Redis) the arguments are checked, ``up.lock`` in
the var directory is locked, so that a second ``up`` there (a second beat on the same database)
is refused, and the ports are bound (the web port is kept, and handed to daphne). SIGINT,
SIGTERM and SIGHUP each stop every process it started, then ``up`` exits 0. A process that
exits by itself is started again after a back-off, as systemd restarts a deployment's units
(microchip_site/supervisor.py); one that keeps crashing stops them all, and ``up`` exits 1.
"""

import argparse
import contextlib
import fcntl
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from microchip_site.services import pid_alive, redis_for_this_run
from microchip_site.supervisor import Child, GaveUp, Supervisor


def at_least_one(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def is_ipv6(host: str) -> bool:
    return ":" in host.strip("[]")


def listening_socket(
    host: str, port: int, backlog: int = 1024, family: int = socket.AF_INET
) -> socket.socket:
    """Bind and listen on (host, port), over IPv4 unless told; the socket can be passed to child
    processes."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def address(host: str, port: int) -> str:
    return f"[{host.strip('[]')}]:{port}" if is_ipv6(host) else f"{host}:{port}"


def check_port(name: str, port: int) -> None:
    if not 1 <= port <= 65535:
        raise CommandError(f"{name} must be a port number from 1 to 65535, not {port}")


def can_listen(host: str, port: int) -> None:
    """Raise CommandError unless (host, port) can be listened on now (for a process that binds
    it itself later: gunicorn, or daphne on IPv6)."""
    family = socket.AF_INET6 if is_ipv6(host) else socket.AF_INET
    try:
        listening_socket(host.strip("[]"), port, backlog=1, family=family).close()
    except OSError as error:
        raise CommandError(f"Cannot listen on {address(host, port)}: {error}") from None


class UpLock:
    """An exclusive lock on `path` (fcntl.flock) for as long as `up` and what it started run.

    The kernel drops it when the last process holding it ends, so a crashed `up` leaves no stale
    lock behind; its children inherit it, so the lock stays while any of them outlives an `up`
    killed with SIGKILL (an orphaned beat would still be a beat). The file names the pid."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
            raise CommandError(self._refusal(holder)) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd

    def _refusal(self, holder: str) -> str:
        if not holder.isdigit():
            who = "Another `manage.py up`"
        elif pid_alive(int(holder)):
            who = f"Another `manage.py up` (pid {holder})"
        else:
            who = f"What `manage.py up` (pid {holder}, gone) started"
        return (
            f"{who} is still running on {self.path.parent} (it holds {self.path}): stop it "
            "first, or give this one a var directory of its own (MICROCHIP_VAR_DIR)."
        )

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class Stopped(BaseException):
    """A stop signal arrived before the platform's processes were started (a BaseException, as
    KeyboardInterrupt is, so that no `except Exception` on the way swallows it)."""


class StopSignals:
    """SIGINT, SIGTERM and SIGHUP all stop `up`. Each is handled explicitly: a background job of
    a non-interactive shell starts with SIGINT ignored (so Python never raises KeyboardInterrupt),
    and SIGHUP (the terminal closed) would otherwise end `up` alone, leaving its children.

    Until the processes start, the first signal raises `Stopped` wherever `up` is (in a
    migration, say), and `check()` between the steps raises it again in case it was raised where
    Python ignores exceptions (a finalizer); from then on a signal only asks the watch loop to
    stop them, so nothing interrupts the stopping."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self):
        self.received = None
        self.raising = True

    def install(self) -> None:
        for signum in self.SIGNALS:
            signal.signal(signum, self._handle)

    def check(self) -> None:
        if self.received is not None:
            raise Stopped(signal.Signals(self.received).name)

    def _handle(self, signum, frame):
        first = self.received is None
        self.received = signum
        if first and self.raising:
            self.check()


def gunicorn_command(host: str, port: int, workers: int) -> list[str]:
    """The gunicorn command line that serves the site's HTTP with `workers` WSGI processes."""
    return [sys.executable, "-m", "gunicorn", "--bind", address(host, port),
            "--workers", str(workers), "microchip_site.wsgi:application"]  # fmt: skip


def daphne_command(sock: socket.socket, host: str) -> list[str]:
    """The daphne command line that serves the app on an inherited listening socket."""
    return [sys.executable, "-m", "daphne", "--fd", str(sock.fileno()),
            *daphne_proxy_arguments(host), "microchip_site.asgi:application"]  # fmt: skip


def daphne_proxy_arguments(host: str) -> list[str]:
    """Listening on the loopback, daphne takes the client's address from the `X-Real-IP` that
    the proxy in front sets (docs/nginx-local.conf, docs/deploy.md): the socket limits per
    address count each client, not the proxy (issue 34). Only there: on an address the world
    reaches, a client could write the header itself, and the peer's address counts."""
    name = host.strip("[]").lower()
    try:
        loopback = name == "localhost" or ipaddress.ip_address(name).is_loopback
    except ValueError:
        loopback = False
    return ["--proxy-headers", "--proxy-headers-host", "X-Real-IP"] if loopback else []


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
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        self.lock = UpLock(settings.VAR_DIR / "up.lock")
        self.lock.acquire()
        self.signals = StopSignals()
        self.signals.install()
        sock = None
        try:
            if is_ipv6(host):
                can_listen(host, port)  # daphne binds it itself
            else:
                # Bound now and held through the migration: the daphne processes adopt it.
                try:
                    sock = listening_socket(host, port)
                except OSError as error:
                    raise CommandError(f"Cannot listen on {address(host, port)}: {error}") from None
            if http:
                can_listen(host, http_port)
            self._run(sock, host, port, web, workers, http, http_port, demo)
        except Stopped as stopped:
            self.stdout.write(f"Stopped ({stopped}) before the platform started.")
        finally:
            self.signals.raising = False
            if sock is not None:
                sock.close()
            self.lock.release()

    def _run(self, sock, host, port, web, workers, http, http_port, demo):
        call_command("migrate", interactive=False, verbosity=1)
        self.signals.check()
        call_command("collectstatic", interactive=False, verbosity=0)
        self.signals.check()
        if demo:
            call_command("demo_players")
            self.signals.check()

        child_env = dict(os.environ)
        # A machine with no configuration is a developer's: show errors in the page and send
        # links over plain http. Production sets DEBUG=false (see the README).
        child_env.setdefault("DEBUG", "true")
        child_env.setdefault("SITE_URL", f"http://localhost:{port}")

        with redis_for_this_run() as redis_url:
            child_env["REDIS_URL"] = redis_url
            self.stdout.write(f"Redis: {redis_url}")
            supervisor = self._start(child_env, sock, host, port, web, workers, http, http_port)
            try:
                name = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
                if is_ipv6(name):
                    name = f"[{name.strip('[]')}]"
                url = f"http://{name}:{port}/"
                self.stdout.write(self.style.SUCCESS(f"Microchip Online is running at {url}"))
                if http:
                    self.stdout.write(
                        f"HTTP also from {http} gunicorn process{'es' if http > 1 else ''} on "
                        f"port {http_port}: put a proxy in front that sends /ws/ to port {port}."
                    )
                self.stdout.write(
                    f"{web} web process{'es' if web > 1 else ''} (daphne), "
                    f"{workers} worker{'s' if workers > 1 else ''}, 1 beat. Press Ctrl+C to stop."
                )
                exited = self._watch(supervisor)
            finally:
                self._stop(supervisor.processes)
                if sock is not None:
                    sock.close()  # the port closes with the last daphne process
        if exited:
            raise CommandError(exited)

    def _start(self, env, sock, host, port, web, workers, http=0, http_port=None):
        python = sys.executable
        beat_schedule = str(settings.VAR_DIR / "celerybeat-schedule")
        if sock is None:
            # daphne's --fd adopts IPv4 sockets only: one process binds the address itself.
            bind = ["-b", host.strip("[]"), "-p", str(port), *daphne_proxy_arguments(host)]
            commands = {"web 1": [python, "-m", "daphne", *bind, "microchip_site.asgi:application"]}
        else:
            commands = {f"web {n}": daphne_command(sock, host) for n in range(1, web + 1)}
        if http:
            commands["http"] = gunicorn_command(host, http_port, http)
        for n in range(1, workers + 1):
            commands[f"worker {n}"] = [
                python, "-m", "celery", "-A", "microchip_site", "worker",
                "--loglevel=INFO", "--concurrency=2", "--hostname", f"worker{n}@%h",
            ]  # fmt: skip
        commands["beat"] = [python, "-m", "celery", "-A", "microchip_site", "beat",
                            "--loglevel=INFO", "--schedule", beat_schedule]  # fmt: skip
        # From here a stop signal no longer raises: the watch loop sees it and stops them all.
        self.signals.raising = False
        self.signals.check()

        def starter(name, command):
            # Every child holds the lock; only the daphne processes get the socket, which `up`
            # keeps open so that a daphne process started again adopts it too.
            fds = [self.lock.fd]
            if sock is not None and name.startswith("web"):
                fds.append(sock.fileno())
            return lambda: subprocess.Popen(command, env=env, cwd=settings.BASE_DIR, pass_fds=fds)

        children = [Child(name, starter(name, command)) for name, command in commands.items()]
        supervisor = Supervisor(children, say=self.stdout.write)
        try:
            supervisor.start_all()
        except BaseException:
            self._stop(supervisor.processes)
            raise
        return supervisor

    def _watch(self, supervisor: Supervisor) -> str:
        """Tend the processes until a stop signal (return "") or until one crashed too often
        (return what to say of it)."""
        while self.signals.received is None:
            try:
                supervisor.tend()
            except GaveUp as reason:
                return str(reason)
            self.stdout.flush()
            time.sleep(0.2)
        self.stdout.write(f"{signal.Signals(self.signals.received).name} received.")
        return ""

    def _stop(self, processes, timeout: float = 20.0):
        self.stdout.write("Stopping ...")
        for process in processes:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + timeout
        for process in processes:
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                process.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=5)
