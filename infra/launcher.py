"""Run the whole platform for `manage.py up` (microchip_site/management/commands/up.py, which
parses its arguments and names the project's entry points): daphne (HTTP and websockets), Celery
workers and one Celery beat, kept running until a stop signal.

With ``web`` above 1 the listening socket is bound once, here, and handed to each of the daphne
processes (``daphne --fd``): they all accept connections on the one address, and the kernel gives
each new connection to whichever process takes it first. No proxy sits in between, and every
process is the same, since no state lives in one process's memory (README, "Production layout").
There are ``workers`` Celery worker processes, and always exactly one beat.

With ``http`` above 0 gunicorn also serves the site's HTTP on ``http_port``, from that many WSGI
worker processes, and daphne's event loop is left to the websockets: under load a move's round
trip takes half the time it takes when daphne runs the view in a thread handed over from that
loop. A reverse proxy in front sends ``/ws/`` to ``port`` and the rest to ``http_port`` (README,
"Production layout").

Before anything slow (the preparing steps: migrate, collectstatic; Redis) ``up.lock`` in the var
directory is locked, so that a second ``up`` there (a second beat on the same database) is
refused, and the ports are bound (the web port is kept, and handed to daphne). SIGINT, SIGTERM
and SIGHUP each stop every process it started, then ``up`` exits 0. A process that exits by
itself is started again after a back-off, as systemd restarts a deployment's units
(infra/supervisor.py); one that keeps crashing stops them all, and ``up`` exits 1.
"""

import contextlib
import fcntl
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.core.management.base import CommandError

from infra.services import pid_alive, redis_for_this_run
from infra.supervisor import Child, GaveUp, Supervisor


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


def gunicorn_command(host: str, port: int, workers: int, wsgi: str) -> list[str]:
    """The gunicorn command line that serves the WSGI app `wsgi` with `workers` processes."""
    return [sys.executable, "-m", "gunicorn", "--bind", address(host, port),
            "--workers", str(workers), wsgi]  # fmt: skip


def daphne_command(sock: socket.socket, host: str, asgi: str) -> list[str]:
    """The daphne command line that serves the ASGI app `asgi` on an inherited listening
    socket."""
    return [sys.executable, "-m", "daphne", "--fd", str(sock.fileno()),
            *daphne_proxy_arguments(host), asgi]  # fmt: skip


def daphne_proxy_arguments(host: str) -> list[str]:
    """Listening on the loopback, daphne takes the client's address from the `X-Real-IP` that
    the proxy in front sets (docs/nginx-local.conf, docs/deploy.md): the socket limits per
    address count each client, not the proxy. Only there: on an address the world reaches, a
    client could write the header itself, and the peer's address counts."""
    name = host.strip("[]").lower()
    try:
        loopback = name == "localhost" or ipaddress.ip_address(name).is_loopback
    except ValueError:
        loopback = False
    return ["--proxy-headers", "--proxy-headers-host", "X-Real-IP"] if loopback else []


@dataclass(frozen=True)
class Platform:
    """What `up` runs, as the project names it: its entry points, the var directory (up.lock,
    the beat's schedule) and the directory the processes run in."""

    asgi: str  # daphne's application, "package.module:attribute"
    wsgi: str  # gunicorn's
    celery: str  # the Celery app, as `celery -A` takes it
    var_dir: Path
    base_dir: Path


class Launcher:
    """Start the platform's processes, keep them running, and stop them all (see the module's
    docstring). `out` takes the lines for the operator (a command's stdout: `write` a line,
    `flush`)."""

    def __init__(self, platform: Platform, out):
        self.platform = platform
        self.out = out
        self.say = out.write

    def run(
        self,
        *,
        host: str,
        port: int,
        web: int,
        workers: int,
        http: int,
        http_port: int,
        env: dict,
        prepare: list[Callable[[], object]],
        announce: list[str],
    ) -> None:
        """Lock the var directory, bind the ports, run each of `prepare` (the migration, the
        static files...), then start the processes with `env`, say `announce` (where the site
        is), and tend them until a stop signal. Raises CommandError when the platform cannot
        start, or stopped because a process kept crashing."""
        self.platform.var_dir.mkdir(parents=True, exist_ok=True)
        self.lock = UpLock(self.platform.var_dir / "up.lock")
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
            self._run(sock, host, port, web, workers, http, http_port, env, prepare, announce)
        except Stopped as stopped:
            self.say(f"Stopped ({stopped}) before the platform started.")
        finally:
            self.signals.raising = False
            if sock is not None:
                sock.close()
            self.lock.release()

    def _run(self, sock, host, port, web, workers, http, http_port, child_env, prepare, announce):
        for step in prepare:
            step()
            self.signals.check()

        with redis_for_this_run() as redis_url:
            child_env = {**child_env, "REDIS_URL": redis_url}
            self.say(f"Redis: {redis_url}")
            supervisor = self._start(child_env, sock, host, port, web, workers, http, http_port)
            try:
                for line in announce:
                    self.say(line)
                if http:
                    self.say(
                        f"HTTP also from {http} gunicorn process{'es' if http > 1 else ''} on "
                        f"port {http_port}: put a proxy in front that sends /ws/ to port {port}."
                    )
                self.say(
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
        platform = self.platform
        beat_schedule = str(platform.var_dir / "celerybeat-schedule")
        if sock is None:
            # daphne's --fd adopts IPv4 sockets only: one process binds the address itself.
            bind = ["-b", host.strip("[]"), "-p", str(port), *daphne_proxy_arguments(host)]
            commands = {"web 1": [python, "-m", "daphne", *bind, platform.asgi]}
        else:
            commands = {
                f"web {n}": daphne_command(sock, host, platform.asgi) for n in range(1, web + 1)
            }
        if http:
            commands["http"] = gunicorn_command(host, http_port, http, platform.wsgi)
        for n in range(1, workers + 1):
            commands[f"worker {n}"] = [
                python, "-m", "celery", "-A", platform.celery, "worker",
                "--loglevel=INFO", "--concurrency=2", "--hostname", f"worker{n}@%h",
            ]  # fmt: skip
        # The engine's queue (settings.ENGINE_QUEUE): one process, apart from the games' tasks.
        commands["engine worker"] = [
            python, "-m", "celery", "-A", platform.celery, "worker", "--queues", "engine",
            "--loglevel=INFO", "--concurrency=1", "--hostname", "engine@%h",
        ]  # fmt: skip
        commands["beat"] = [python, "-m", "celery", "-A", platform.celery, "beat",
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
            return lambda: subprocess.Popen(command, env=env, cwd=platform.base_dir, pass_fds=fds)

        children = [Child(name, starter(name, command)) for name, command in commands.items()]
        supervisor = Supervisor(children, say=self.say)
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
            self.out.flush()
            time.sleep(0.2)
        self.say(f"{signal.Signals(self.signals.received).name} received.")
        return ""

    def _stop(self, processes, timeout: float = 20.0):
        self.say("Stopping ...")
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
