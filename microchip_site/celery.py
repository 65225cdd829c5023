"""The Celery app: the worker and beat run the timed work (forced takes, reminders, timeouts)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")

app = Celery("microchip_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
