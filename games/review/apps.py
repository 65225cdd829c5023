from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "games.review"
    label = "review"
    verbose_name = "Engine reviews"

    def ready(self):
        # The review's task registered in every process that may queue or run it (the tests
        # apply it eagerly by its name).
        from . import tasks  # noqa: F401
