"""Make and keep the project's virtual environment, using only the standard library.

`manage.py` calls `ensure_environment()` before it imports Django, so a fresh clone needs nothing
but Python 3.11+: the first run creates `.venv`, installs `requirements-dev.lock` (exact versions
and hashes), and re-runs the same command inside it. A changed lock file is installed again.
"""

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
LOCK_FILE = BASE_DIR / "requirements-dev.lock"  # the production lock plus the dev tools
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
    _install_if_stale(python, target)
    if not inside:
        os.execv(python, [str(python), *sys.argv])


def _install_if_stale(python: Path, target: Path) -> None:
    stamp = target / ".microchip-lock-sha256"
    wanted = hashlib.sha256(LOCK_FILE.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text().strip() == wanted:
        return
    print("Installing the locked dependencies (first run or changed lock file) ...", flush=True)
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    result = subprocess.run([*command, "--require-hashes", "-r", str(LOCK_FILE)], check=False)
    if result.returncode != 0:
        sys.exit("Installing the dependencies failed; see pip's message above.")
    stamp.write_text(wanted + "\n")
