from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "microchip_site"
    verbose_name = "Microchip Online"

    def ready(self):
        # The Celery app is made whenever Django starts, so that the apps' `shared_task`s and
        # `celery.current_app` are this app in every process: web, worker, beat and commands.
        from . import celery  # noqa: F401
