from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self):
        # How the outbox (infra/outbox.py) sends the games' rows: notices and digests.
        from games.notices import delivery

        delivery.register()
