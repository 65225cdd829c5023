"""Run the whole check: ruff (lint and format), import-linter (the layers), mypy, then pytest.

Replaces Django's own `test` command so that `manage.py test` is the one test command for people
and CI alike. Any arguments are passed to pytest (e.g. `manage.py test tests/rules -x`), except:

- `--fast`: leave out the tests marked `servers` (they start servers, browsers, workers) and
  those marked `slow` (3 seconds or more): pytest's `-m "not slow and not servers"`.
- `-n N` (pytest-xdist, N of 2 or more): N worker processes, each with a Redis of its own (the
  first takes the run's, the others a private one each: the tests use fixed database numbers of
  their Redis and flush them) and a var directory of its own; tests grouped by file.

With REDIS_URL unset, a private Redis is started for the run, as `manage.py up` does. The run
writes its SQLite test database, secret key and static files in a var directory of its own,
`<var>/test-runs/<pid>/`, removed at the end, so that a `manage.py up` of the same checkout is
left alone (and leaves the tests alone).
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from infra.services import pid_alive, private_redis, redis_for_this_run


class Command(BaseCommand):
    help = (
        "Lint with ruff, check types with mypy, then pytest (arguments go to pytest; --fast, -n N)."
    )

    def run_from_argv(self, argv):
        sys.exit(self.run_checks(argv[2:]))

    def run_checks(self, pytest_args):
        base = str(settings.BASE_DIR)
        python = sys.executable
        for ruff in (["check", "."], ["format", "--check", "."]):
            print(f"$ ruff {' '.join(ruff)}", flush=True)
            if subprocess.run([python, "-m", "ruff", *ruff], cwd=base).returncode:
                return 1
        # The layers of the code (pyproject.toml's import-linter contracts).
        print("$ lint-imports", flush=True)
        lint_imports = str(Path(python).parent / "lint-imports")
        if subprocess.run([lint_imports, "--no-cache", "--no-logo"], cwd=base).returncode:
            return 1
        # The types of the rules, the state changes and the effects (pyproject.toml's [tool.mypy];
        # its cache in the var directory keeps a run after a small change under a second).
        print("$ mypy", flush=True)
        cache = Path(settings.VAR_DIR) / "mypy-cache"
        if subprocess.run([python, "-m", "mypy", "--cache-dir", str(cache)], cwd=base).returncode:
            return 1
        if not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium")):
            print(
                "NOTE: the browser tests (tests/e2e) are SKIPPED: Chromium is not installed "
                "(Debian: apt-get install chromium).",
                flush=True,
            )
        return run_pytest(pytest_args)


def run_pytest(pytest_args, **extra_env) -> int:
    """Run pytest with `pytest_args` on the run's Redis and var directory; return its code."""
    fast = ["-m", "not slow and not servers"]
    args = [part for arg in pytest_args for part in (fast if arg == "--fast" else [arg])]
    args, workers = _take_workers(args)
    env = {**os.environ, **extra_env}
    with _var_dir_for_this_run() as var_dir, redis_for_this_run() as redis_url:
        env["MICROCHIP_VAR_DIR"] = str(var_dir)
        env["REDIS_URL"] = redis_url
        with contextlib.ExitStack() as stack:
            if workers > 1:
                others = [stack.enter_context(private_redis()) for _ in range(workers - 1)]
                env["MICROCHIP_TEST_REDIS_URLS"] = ",".join([redis_url, *others])
                # In collection order (no reordering by size): the browser tests must come
                # last in a worker, after every test that runs an event loop of its own.
                xdist = ["-n", str(workers), "--dist", "loadfile", "--no-loadscope-reorder"]
                args = ["-p", "tests.xdist_workers", *xdist, *args]
            redis = env.get("MICROCHIP_TEST_REDIS_URLS", redis_url)
            print(f"$ pytest {' '.join(args)}  (Redis: {redis}; var: {var_dir})", flush=True)
            command = [sys.executable, "-m", "pytest", *args]
            return subprocess.run(command, cwd=settings.BASE_DIR, env=env).returncode


def _take_workers(args):
    """Take pytest-xdist's `-n N` / `-nN` / `--numprocesses[=]N` out of `args`: (rest, N)."""
    rest, workers, values = [], 1, iter(args)
    for arg in values:
        match = re.fullmatch(r"(?:-n|--numprocesses)(?:=?(\d+))?", arg)
        if match is None:
            rest.append(arg)
            continue
        value = match.group(1) or next(values, "")
        if not value.isdigit():
            raise SystemExit(f"manage.py test: {arg} takes a number of workers, got {value!r}")
        workers = int(value)
    return rest, workers


@contextlib.contextmanager
def _var_dir_for_this_run():
    runs = Path(settings.VAR_DIR) / "test-runs"
    for stale in runs.glob("*"):  # left by a run that was killed
        if stale.name.isdigit() and not pid_alive(int(stale.name)):
            shutil.rmtree(stale, ignore_errors=True)
    var_dir = runs / str(os.getpid())
    # static/ too: a conftest may build the ASGI app (and whitenoise look there) on import.
    (var_dir / "static").mkdir(parents=True, exist_ok=True)
    try:
        yield var_dir
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)
