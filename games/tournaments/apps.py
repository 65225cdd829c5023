from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """The platform's part of tournaments: its rows, changes, tasks, pages and notices. (The
    pairing, schedules and standings beside them are pure: docs/tournaments.md.)"""

    name = "games.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        # How the outbox (infra/outbox.py) sends the tournaments' notices.
        from . import notices

        notices.register()
