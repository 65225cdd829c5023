"""The key of each username that tells look-alike names (accounts/names.py), unique.

Existing accounts get their key in order of age; an account whose name already looks like an
older one's keeps no key (null), so the migration never fails on names that exist: it is only
new names that are refused.
"""

from django.db import migrations, models


def fill_keys(apps, schema_editor):
    from accounts.names import name_key

    User = apps.get_model("accounts", "User")
    taken = set()
    for pk, username in User.objects.order_by("pk").values_list("pk", "username").iterator():
        key = name_key(username)
        if key not in taken:
            taken.add(key)
            User.objects.filter(pk=pk).update(name_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_theme"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="name_key",
            field=models.CharField(editable=False, max_length=64, null=True, unique=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop, elidable=True),
    ]
