"""A small thread-safe least-recently-used cache of one process, bounded by entries or by bytes.

A long-lived process (daphne runs for weeks) must reach a ceiling it then keeps: a cache bounded
only by its number of entries is a ceiling whose height depends on what the entries hold, and
one large enough for a busy hour fills for hours (the soak's daphne memory, docs/performance.md).
So the drawing caches are bounded by about the bytes their text takes (`memo`).
"""

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable

_every = weakref.WeakSet()

MIB = 1024 * 1024


def clear_all() -> None:
    """Forget everything every cache of this process holds: for tests, whose rolled-back rows
    let a game's id (and so a key) come again with other contents."""
    for cache in list(_every):
        cache.clear()


class LRU:
    def __init__(
        self,
        size: int | None = None,
        *,
        max_bytes: int | None = None,
        weigh: Callable[[object], int] | None = None,
    ):
        assert size or (max_bytes and weigh), "an LRU needs a bound"
        self.size = size
        self.max_bytes = max_bytes
        self.weigh = weigh
        self.items: OrderedDict = OrderedDict()
        self.weights: dict = {}
        self.bytes = 0
        self.lock = threading.Lock()
        _every.add(self)

    def __contains__(self, key) -> bool:
        with self.lock:
            return key in self.items

    def get(self, key, default=None):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
            return default

    def get_or_make(self, key, make: Callable):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        self.put(key, value)
        return value

    def pop(self, key) -> None:
        with self.lock:
            if self.items.pop(key, None) is not None:
                self.bytes -= self.weights.pop(key)

    def put(self, key, value) -> None:
        """Keep `value` under `key` (again, after a change to it: it is weighed anew)."""
        weight = self.weigh(value) if self.weigh is not None else 0
        with self.lock:
            self.bytes += weight - self.weights.get(key, 0)
            self.items[key] = value
            self.weights[key] = weight
            self.items.move_to_end(key)
            while len(self.items) > 1 and (
                (self.size is not None and len(self.items) > self.size)
                or (self.max_bytes is not None and self.bytes > self.max_bytes)
            ):
                oldest, _ = self.items.popitem(last=False)
                self.bytes -= self.weights.pop(oldest)

    def clear(self):
        with self.lock:
            self.items.clear()
            self.weights.clear()
            self.bytes = 0


# What an entry costs besides its text: its key (often a dataclass of a few fields), the dict's
# and the order's slots.
ENTRY_OVERHEAD = 600


def text_size(value) -> int:
    """About the bytes of the text in `value`: a string, a tuple or list of them, or a drawing
    or a piece of one."""
    if isinstance(value, str):
        return len(value) + 49
    if isinstance(value, tuple | list):
        return sum(text_size(item) for item in value) + 8 * len(value)
    if hasattr(value, "pieces"):  # a drawing in pieces (games/drawing/pieces.py)
        return sum(text_size(piece) + 8 for piece in value.pieces()) + 64
    if hasattr(value, "weight"):  # one piece, which knows (its markup may not be drawn yet)
        return value.weight
    if hasattr(value, "html"):
        return text_size(value.html) + 64
    return 64


def memo(max_bytes: int):
    """Like `functools.lru_cache` for a function of hashable arguments that returns text, but
    bounded by about `max_bytes` of it."""

    def decorate(function):
        cache = LRU(max_bytes=max_bytes, weigh=lambda value: ENTRY_OVERHEAD + text_size(value))

        @functools.wraps(function)
        def cached(*args):
            found = cache.get(args, _MISSING)
            if found is _MISSING:
                found = function(*args)
                cache.put(args, found)
            return found

        cached.cache = cache
        return cached

    return decorate


_MISSING = object()
