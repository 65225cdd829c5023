"""Run the whole check: ruff (lint and format), import-linter (the layers), then pytest.

Replaces Django's own `test` command so that `manage.py test` is the one test command for people
and CI alike. Any arguments are passed to pytest (e.g. `manage.py test tests/rules -x`). With
REDIS_URL unset, a private Redis is started for the run, as `manage.py up` does.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from microchip_site.services import redis_for_this_run


class Command(BaseCommand):
    help = "Lint with ruff, then run the pytest suite (arguments go to pytest)."

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
        if not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium")):
            print(
                "NOTE: the browser tests (tests/e2e) are SKIPPED: Chromium is not installed "
                "(Debian: apt-get install chromium).",
                flush=True,
            )
        env = dict(os.environ)
        with redis_for_this_run() as redis_url:
            env["REDIS_URL"] = redis_url
            print(f"$ pytest {' '.join(pytest_args)}  (Redis: {redis_url})", flush=True)
            return subprocess.run(
                [python, "-m", "pytest", *pytest_args], cwd=base, env=env
            ).returncode
