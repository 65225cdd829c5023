"""What drawing keeps, so that a move's pushes are cheap: one subsystem, one interface.

- A version's view, drawn for no one, once per process (`snapshot`): made from what the move
  that made it left in this process (`keep_made`), or carried in its push from the process
  that made it (`pack`, `keep_carried`: carried.py), else read.
- The markup drawn from it, kept per language for the next viewer who would see the same
  (`fragment`; `kept` looks without drawing), a push for every watcher of a game once.
- What each page shows, piece by piece (looks.py: `page_looks`, `looks_of`), so that a push or
  an answer sends only the pieces whose look differs.

The pieces' own caches (a space, a tray tile, a pool column drawn once per process, keyed by
all they show: games/drawing/pieces.py) sit beside these. Nothing outside games/drawing/ but the
live layer (which keeps what its pushes carry) and the tests needs this package.
"""

from games.drawing.cache.versions import (
    forget,
    fragment,
    held,
    holds_sockets,
    keep_carried,
    keep_made,
    keep_seen,
    kept,
    pack,
    seen,
    snapshot,
)

__all__ = [
    "forget",
    "fragment",
    "held",
    "holds_sockets",
    "keep_carried",
    "keep_made",
    "keep_seen",
    "kept",
    "pack",
    "seen",
    "snapshot",
]
