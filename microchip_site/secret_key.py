import os
import secrets
from pathlib import Path


def _owner_only(path, flags):
    return os.open(path, flags, 0o600)


def local_secret_key(path: Path) -> str:
    """Return the key kept in `path`, creating it (readable by its owner only) on first use."""
    return local_value(path, lambda: secrets.token_urlsafe(50))


def local_value(path: Path, make) -> str:
    """Return the one-line value kept in `path`, made by `make()` and written (readable by its
    owner only) on first use."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = make()
    # Written whole under another name, then linked into place (which fails if the file exists):
    # a process starting at the same moment reads either no file or the whole key, never a
    # half-written one.
    draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        with open(draft, "x", opener=_owner_only) as file:
            file.write(key + "\n")
        os.link(draft, path)
    except FileExistsError:  # Another process made it first: use theirs.
        return path.read_text().strip()
    finally:
        draft.unlink(missing_ok=True)
    return key
