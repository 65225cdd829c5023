"""The Celery app: the worker and beat run the timed work (forced takes, reminders, timeouts)
and send the outbox. Its tasks are the apps' `shared_task`s (games/tasks.py, infra/tasks.py),
found in the installed apps."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")

app = Celery("microchip_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _freeze_heap(**kwargs):
    """A worker's child, once forked and ready, sets what it started with aside from the garbage
    collector (infra/heap.py)."""
    from infra.heap import freeze_after_start

    freeze_after_start()
