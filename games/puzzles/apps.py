from django.apps import AppConfig


class PuzzlesConfig(AppConfig):
    name = "games.puzzles"
    label = "puzzles"
    verbose_name = "Puzzles"

    def ready(self):
        # The cutting task registered in every process that may queue or run it.
        from . import tasks  # noqa: F401
