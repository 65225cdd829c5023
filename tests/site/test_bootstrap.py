"""The bootstrap keeps a virtual environment equal to its lock: a package installed by hand, or one
dropped from the lock, is uninstalled at the next run after the lock changes.

Offline: a new venv in a temporary folder, a lock of two tiny wheels made here, pip told to use no
index, and this environment's pip-tools running the sync against the new venv.
"""

import base64
import hashlib
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from microchip_site import bootstrap
from tests.tiers import starts_processes

pytestmark = pytest.mark.servers  # a venv is made, and pip runs five times: about 15 seconds


def make_wheel(folder: Path, name: str, version: str = "1.0") -> Path:
    """A minimal pure-Python wheel holding one module, `name`."""
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": f"VERSION = {version!r}\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def lock_line(wheel: Path) -> str:
    name, version = wheel.name.split("-")[:2]
    return f"{name}=={version} --hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}\n"


def installed(python: Path) -> set[str]:
    listing = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.split("==")[0].lower() for line in listing.splitlines()}


@pytest.fixture(scope="module")
@starts_processes("a new virtual environment and pip")
def new_venv(tmp_path_factory):
    target = tmp_path_factory.mktemp("bootstrap") / "venv"
    venv.create(target, with_pip=True)
    return target / "bin" / "python"


@pytest.fixture
def environment(new_venv, tmp_path, monkeypatch):
    """The new venv, a folder for the wheels to install from, and pip kept off every index."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    return new_venv, wheels


def test_a_changed_lock_removes_what_it_does_not_list(environment, tmp_path):
    python, wheels = environment
    kept, dropped, by_hand = (
        make_wheel(wheels, name) for name in ("keptpkg", "droppedpkg", "byhand")
    )
    lock = tmp_path / "requirements.lock"
    stamp = tmp_path / bootstrap.STAMP_NAME
    tools = Path(sys.executable)  # this environment's pip-tools

    lock.write_text(lock_line(kept) + lock_line(dropped))
    assert bootstrap.sync_if_stale(python, lock, stamp=stamp, tools=tools)
    assert {"keptpkg", "droppedpkg"} <= installed(python)

    # Installed by hand: left alone while the lock is unchanged (no sync, no pip, at each run).
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(by_hand)], check=True)
    assert bootstrap.sync_if_stale(python, lock, stamp=stamp, tools=tools)
    assert "byhand" in installed(python)

    # The lock changes (droppedpkg leaves it): the next run uninstalls both strays.
    lock.write_text(lock_line(kept))
    assert bootstrap.sync_if_stale(python, lock, stamp=stamp, tools=tools)
    now = installed(python)
    assert "keptpkg" in now
    assert "droppedpkg" not in now
    assert "byhand" not in now
    assert stamp.read_text().strip() == bootstrap.lock_digest(lock)


def test_a_failed_install_leaves_the_environment_stale(environment, tmp_path):
    python, wheels = environment
    wheel = make_wheel(wheels, "badhashpkg")
    lock = tmp_path / "requirements.lock"
    lock.write_text(lock_line(wheel).replace("sha256:", "sha256:0"))  # a hash that cannot match
    stamp = tmp_path / bootstrap.STAMP_NAME
    assert not bootstrap.sync_if_stale(python, lock, stamp=stamp, tools=Path(sys.executable))
    assert not stamp.exists()  # so the next run tries again
    assert "badhashpkg" not in installed(python)
