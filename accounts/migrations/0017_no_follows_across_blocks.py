"""A blocked player could follow the blocker again (issue 34); neither may now. The follows made
meanwhile between two players in a block go."""

from django.db import migrations
from django.db.models import Exists, OuterRef, Q


def end_follows_across_blocks(apps, schema_editor):
    Block = apps.get_model("accounts", "Block")
    Follow = apps.get_model("accounts", "Follow")
    blocked = Block.objects.filter(
        Q(blocker=OuterRef("follower"), blocked=OuterRef("followed"))
        | Q(blocker=OuterRef("followed"), blocked=OuterRef("follower"))
    )
    Follow.objects.filter(Exists(blocked)).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0016_user_labels_translated")]
    operations = [migrations.RunPython(end_follows_across_blocks, migrations.RunPython.noop)]
