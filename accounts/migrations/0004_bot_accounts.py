"""Create the computer players' accounts: four of each level, so a game may seat several bots
of one level (an account sits at most once at a table). They have no email and no usable
password, so nobody can log in as them and no email is ever sent to them."""

from django.contrib.auth.hashers import make_password
from django.db import migrations
from django.db.models.functions import Lower

BOTS = {"easy": "EasyBot", "strong": "StrongBot"}
PER_LEVEL = 4


def bot_names():
    for level, stem in BOTS.items():
        for n in range(1, PER_LEVEL + 1):
            yield level, stem if n == 1 else f"{stem}{n}"


def create_bots(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for level, name in bot_names():
        existing = User.objects.annotate(lower=Lower("username")).filter(lower=name.lower())
        if existing.exists():  # a person already has this name: that level gets one bot fewer
            existing.filter(bot_level__isnull=False).update(bot_level=level)
            continue
        User.objects.create(
            username=name,
            email="",
            password=make_password(None),  # unusable
            bot_level=level,
            first_name=f"{level.capitalize()} computer player",
            email_your_turn=False,
            email_reminder=False,
            email_timeout=False,
            email_invitation=False,
            email_game_started=False,
            email_game_over=False,
        )


def remove_bots(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.filter(bot_level__isnull=False).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_user_bot_level"),
    ]

    operations = [migrations.RunPython(create_bots, remove_bots)]
