"""A server process's heap and the garbage collector (issue 36).

At each full collection Python's cyclic garbage collector walks every object that can refer to
another: in a process of this site about 250,000 of them are made while it starts (modules,
classes, functions, the URL patterns, the API's schemas) and live as long as it does. Walking
them again and again was a large part of a web process's CPU: drawing a game's pushes in one
process, full collections took 159 ms of 413 (72 pushes); with the objects of the start set
aside, 9 ms. In a profile of daphne under load this time showed up wherever an allocation
happened to start a collection (a dataclass's __init__, a thread pool's submit).

So each server process, once it has loaded everything its requests need (its views, and
Celery's side that queues tasks: see `_prepare_task_sending`), collects once and freezes what
is left (`gc.freeze`, as Python's documentation suggests for long-lived processes):
those objects are never walked again. What requests and pushes make is collected as before.

After the freeze a young collection waits for YOUNG_OBJECTS new objects, not Python's 700. A
push or an answer makes thousands (template contexts, nodes' lists, the pieces of a drawing), so
at 700 a drawing started several collections, and every hundredth young collection became a
full one, which walks everything the drawing caches keep: about 100 ms each in a daphne process
under load, a tenth of its CPU with the younger generations. The cost is memory: cyclic garbage
waits for up to YOUNG_OBJECTS objects instead of 700, a few megabytes at most.
"""

import gc
from importlib import import_module

from django.conf import settings

YOUNG_OBJECTS = 10_000


def freeze_after_start() -> None:
    """Load the URLconf (and with it every view) and Celery's sending side, collect, and set
    every object alive now aside from the garbage collector for the life of the process; from
    then on, collect the young generation less often."""
    import_module(settings.ROOT_URLCONF)
    _prepare_task_sending()
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, middle, old)


def _prepare_task_sending() -> None:
    """Make what Celery makes the first time a process queues a task: the app's registry of
    tasks, its AMQP side with its pool of producers, and its result backend (issue 36). Made by
    the first move that queued a task in each gunicorn worker, that was about 80 ms of CPU in a
    player's request (a forced take comes a few minutes into a game, so a load benchmark of a
    few minutes paid it in every worker). Nothing connects here: the producers' connections are
    made when they are first used, and a broker that is down does not keep the process from
    starting."""
    from celery import current_app

    current_app.tasks  # noqa: B018 (the registry is made, and the app finalized, when read)
    amqp = current_app.amqp
    amqp.producer_pool  # noqa: B018 (likewise: made when first read)
    amqp.send_task_message  # noqa: B018
    current_app.backend  # noqa: B018
