import os
import secrets
from pathlib import Path


def _owner_only(path, flags):
    return os.open(path, flags, 0o600)


def local_secret_key(path: Path) -> str:
    """Return the key kept in `path`, creating it (readable by its owner only) on first use."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        with open(path, "x", opener=_owner_only) as file:
            file.write(key + "\n")
    except FileExistsError:  # Another process made it first: use theirs.
        return path.read_text().strip()
    return key
