"""A small thread-safe least-recently-used cache of one process."""

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable

_every = weakref.WeakSet()


def clear_all() -> None:
    """Forget everything every cache of this process holds: for tests, whose rolled-back rows
    let a game's id (and so a key) come again with other contents."""
    for cache in list(_every):
        cache.clear()


class LRU:
    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()
        _every.add(self)

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

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self):
        with self.lock:
            self.items.clear()
