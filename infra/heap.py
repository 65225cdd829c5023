"""A server process's heap and the garbage collector (issue 36).

At each full collection Python's cyclic garbage collector walks every object that can refer to
another: in a process of this site about 250,000 of them are made while it starts (modules,
classes, functions, the URL patterns, the API's schemas) and live as long as it does. Walking
them again and again was a large part of a web process's CPU: drawing a game's pushes in one
process, full collections took 159 ms of 413 (72 pushes); with the objects of the start set
aside, 9 ms. In a profile of daphne under load this time showed up wherever an allocation
happened to start a collection (a dataclass's __init__, a thread pool's submit).

So each server process, once it has loaded everything its requests need, collects once and
freezes what is left (`gc.freeze`, as Python's documentation suggests for long-lived processes):
those objects are never walked again. What requests and pushes make is collected as before.
"""

import gc
from importlib import import_module

from django.conf import settings


def freeze_after_start() -> None:
    """Load the URLconf (and with it every view), collect, and set every object alive now aside
    from the garbage collector for the life of the process."""
    import_module(settings.ROOT_URLCONF)
    gc.collect()
    gc.freeze()
