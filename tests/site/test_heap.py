"""A server process sets aside, once started, what it made while starting, so the garbage
collector does not walk those objects again at every full collection (infra/heap.py, issue
36); what is made afterwards is still collected."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SERVED = """
import gc, sys
import {entry}
frozen = gc.get_freeze_count()
views_loaded = "games.play.views" in sys.modules
from celery import current_app
# Celery's sending side, made before the freeze: the first move that queues a task does not.
senders_ready = current_app.finalized and "celery.app.amqp" in sys.modules


class Node:
    pass


collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
drawing = [[index] for index in range(5_000)]  # a push's worth of new objects
gc.callbacks.clear()

first, second = Node(), Node()
first.other, second.other = second, first
del first, second
print(frozen, views_loaded and senders_ready, len(collections), gc.collect())
"""


def _serve(entry: str) -> tuple[int, bool, int, int]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "microchip_site.settings"}
    done = subprocess.run(
        [sys.executable, "-c", SERVED.format(entry=entry)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    frozen, views_loaded, collections, collected = done.stdout.split()[-4:]
    return int(frozen), views_loaded == "True", int(collections), int(collected)


def test_the_web_processes_set_their_start_aside_and_still_collect_garbage():
    for entry in ("microchip_site.wsgi", "microchip_site.asgi"):
        frozen, views_loaded, collections, collected = _serve(entry)
        assert frozen > 10_000, entry  # the modules, classes and functions of a started site
        # Every view is loaded before, and Celery's side that queues tasks is made: no request
        # loads one later (the first move to queue a task in each worker paid about 80 ms).
        assert views_loaded, entry
        # What a push or an answer makes starts no collection (Python's default would start
        # seven here, and every hundredth young collection is a full one).
        assert collections == 0, entry
        assert collected >= 2, entry  # a cycle made afterwards is still collected


def test_a_worker_child_sets_its_start_aside_once_forked():
    # Celery sends worker_process_init in each child of the prefork pool, Django set up.
    entry = "django, microchip_site.celery\nfrom celery.signals import worker_process_init\n"
    entry += "django.setup()\nworker_process_init.send(sender=None)"
    frozen, _, collections, collected = _serve(entry)
    assert frozen > 10_000
    assert collections == 0
    assert collected >= 2
