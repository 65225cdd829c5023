from django.apps import AppConfig


class FirstVisitConfig(AppConfig):
    name = "games.first_visit"
    label = "first_visit"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "First visit"

    def ready(self):
        from django.contrib.auth.signals import user_logged_out

        from . import guests

        # A guest who logs out has left: their account and games go at once.
        user_logged_out.connect(guests.remove_on_logout, dispatch_uid="first_visit_guest_leaves")
