"""A real daphne process on the test database and the run's Redis, as production serves the site:
for the tests of what only a real server shows (a stream's headers and lines as they leave, a
socket flood's cost to other players)."""

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass

from django.conf import settings

from infra.services import free_port
from tests.conftest import server_environment


@dataclass(frozen=True)
class Daphne:
    url: str
    port: int
    pid: int

    def cpu_seconds(self) -> float:
        """The processor time the server has used so far (user and system)."""
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def running_daphne(redis_url: str, workdir, *, port=None, arguments=(), **environment):
    """Start daphne (on `port`, or a free one; with `arguments` added to its command line and
    `environment` to its environment); yield it once it answers /health/, and stop it at the
    end."""
    port = port or free_port()
    (workdir / "static").mkdir(exist_ok=True)
    env = server_environment(redis_url=redis_url, workdir=workdir, **environment)
    log_path = workdir / "daphne.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), *arguments,
             "microchip_site.asgi:application"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=log,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log_path.read_text()[-3000:]
                try:
                    with urllib.request.urlopen(f"{url}/health/", timeout=2):
                        break
                except OSError:
                    assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                    time.sleep(0.2)
            yield Daphne(url, port, process.pid)
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
