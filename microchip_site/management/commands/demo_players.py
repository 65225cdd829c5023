from allauth.account.models import EmailAddress
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User

DEMO_PLAYERS = ["ada", "brian", "chloe", "dmitri", "esme"]
DEMO_PASSWORD = "microchip-demo"


class Command(BaseCommand):
    help = "Create demo players with confirmed email addresses, to log in at once."

    @transaction.atomic
    def handle(self, *args, **options):
        for username in DEMO_PLAYERS:
            email = f"{username}@example.com"
            user, created = User.objects.get_or_create(username=username, defaults={"email": email})
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            EmailAddress.objects.update_or_create(
                user=user, email=email, defaults={"verified": True, "primary": True}
            )
        names = ", ".join(DEMO_PLAYERS)
        self.stdout.write(f"Demo players: {names}; password: {DEMO_PASSWORD}")
