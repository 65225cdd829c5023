"""The expert computer player (issue 38): its level, and four accounts for it as 0004 made for
easy and strong (ExpertBot, ExpertBot2...), with no email and no usable password, so nobody can
log in as them and no email is ever sent to them. accounts/bots.py makes more when a game needs
them."""

from django.contrib.auth.hashers import make_password
from django.db import migrations, models
from django.db.models.functions import Lower

LEVEL, STEM, PER_LEVEL = "expert", "ExpertBot", 4


def create_expert_bots(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    # Every email switch of the account as it is at this migration: all off.
    switches = {
        field.name: False
        for field in User._meta.get_fields()
        if field.name.startswith("email_") and isinstance(field, models.BooleanField)
    }
    for n in range(1, PER_LEVEL + 1):
        name = STEM if n == 1 else f"{STEM}{n}"
        if User.objects.annotate(lower=Lower("username")).filter(lower=name.lower()).exists():
            continue  # a person (or an earlier run) has this name: one bot fewer
        User.objects.create(
            username=name,
            email="",
            password=make_password(None),  # unusable
            bot_level=LEVEL,
            first_name=f"{LEVEL.capitalize()} computer player",
            **switches,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0019_user_is_guest"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="bot_level",
            field=models.CharField(
                blank=True,
                choices=[("easy", "easy"), ("strong", "strong"), ("expert", "expert")],
                default=None,
                max_length=10,
                null=True,
            ),
        ),
        # Backwards the accounts stay: they may hold seats, which keep their players.
        migrations.RunPython(create_expert_bots, migrations.RunPython.noop),
    ]
