"""A small thread-safe least-recently-used cache of one process."""

import threading
from collections import OrderedDict
from collections.abc import Callable


class LRU:
    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

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
