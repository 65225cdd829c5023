"""Make and keep the project's virtual environment, using only the standard library.

`manage.py` calls `ensure_environment()` before it imports Django, so a fresh clone needs nothing
but Python 3.11+: the first run creates `.venv`, installs `requirements-dev.lock` (exact versions
and hashes: the production lock `requirements.lock` plus the test, lint and benchmark tools,
pip-tools among them), and re-runs the same command inside it. When a lock file has changed since
the last run, pip-tools' `pip-sync` makes the environment match it exactly: it installs what is
new or changed and uninstalls what the lock no longer lists (pip, setuptools, wheel and pip-tools
itself excepted).

A production install uses `requirements.lock` alone, with `MICROCHIP_NO_BOOTSTRAP=1` so that
`manage.py` leaves the environment to the operator.
"""

import fcntl
import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
PRODUCTION_LOCK = BASE_DIR / "requirements.lock"
DEV_LOCK = BASE_DIR / "requirements-dev.lock"  # built on the production lock (`-c`)
STAMP_NAME = ".microchip-lock-sha256"
MINIMUM_PYTHON = (3, 11)


def venv_dir() -> Path:
    return Path(os.environ.get("MICROCHIP_VENV", BASE_DIR / ".venv")).resolve()


def ensure_environment() -> None:
    """Return when running inside an up-to-date environment; otherwise build it and re-exec."""
    if os.environ.get("MICROCHIP_NO_BOOTSTRAP"):
        return  # The operator manages the environment (a container image, a system package).
    target = venv_dir()
    python = target / "bin" / "python"
    inside = Path(sys.prefix).resolve() == target
    if not inside and sys.version_info < MINIMUM_PYTHON:
        sys.exit(f"Microchip Online needs Python {'.'.join(map(str, MINIMUM_PYTHON))} or newer.")
    if not python.exists():
        print(f"Creating the virtual environment in {target} ...", flush=True)
        venv.create(target, with_pip=True)
    if not sync_if_stale(python, DEV_LOCK, stamp=target / STAMP_NAME):
        sys.exit("Installing the dependencies failed; see pip's message above.")
    if not inside:
        os.execv(python, [str(python), *sys.argv])


def lock_digest(lock: Path) -> str:
    """The digest of `lock` and of the files it is built on (the production lock for the dev
    lock): a change to any of them means the environment must be synced again."""
    digest = hashlib.sha256(lock.read_bytes())
    if lock == DEV_LOCK:
        digest.update(PRODUCTION_LOCK.read_bytes())
    return digest.hexdigest()


def sync_if_stale(python: Path, lock: Path, *, stamp: Path, tools: Path | None = None) -> bool:
    """Make the environment of `python` match `lock` unless it did for this very lock already.

    `tools` is the interpreter whose pip-tools runs the sync (default: `python` itself, which gets
    pip-tools from the lock first if it has none). Returns False when pip failed. Commands started
    at once (a test run's servers) wait for one another's sync instead of racing."""
    wanted = lock_digest(lock)
    if _stamped(stamp, wanted):
        return True
    with open(stamp.with_name(stamp.name + ".lock"), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if _stamped(stamp, wanted):
            return True  # another command synced it while this one waited
        print(f"Syncing the environment with {lock.name} (new or changed) ...", flush=True)
        if not _sync(python, lock, tools or python):
            return False
        stamp.write_text(wanted + "\n")
    return True


def _stamped(stamp: Path, wanted: str) -> bool:
    return stamp.exists() and stamp.read_text().strip() == wanted


def _sync(python: Path, lock: Path, tools: Path) -> bool:
    quiet = ["--disable-pip-version-check", "--quiet"]
    if not _has_pip_tools(tools):
        # A new environment: pip installs the lock, which carries pip-tools; the sync below then
        # removes whatever else the environment held.
        install = [str(python), "-m", "pip", "install", *quiet, "--require-hashes", "-r", str(lock)]
        if subprocess.run(install, check=False).returncode != 0:
            return False
    sync = [str(tools), "-m", "piptools", "sync", "--quiet", "--pip-args", " ".join(quiet)]
    if tools != python:
        sync += ["--python-executable", str(python)]
    return subprocess.run([*sync, str(lock)], check=False).returncode == 0


def _has_pip_tools(python: Path) -> bool:
    probe = [str(python), "-c", "import piptools"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0
