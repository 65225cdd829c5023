from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        from allauth.account.signals import password_reset

        from .lockout import lift_lock

        def lift_after_reset(sender, request, user, **kwargs):
            lift_lock(user)

        password_reset.connect(lift_after_reset, weak=False, dispatch_uid="accounts.lift_lock")
