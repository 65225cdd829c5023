"""The outbox moves below the games (issue 35): games.OutboxEmail becomes infra.OutboxEmail.

No row is copied or lost: the table is renamed in place (games_outboxemail to
infra_outboxemail) and its partial index with it, and the link to the game loses its foreign
key constraint to become a plain indexed id (the column, its values and its index stay), since
the outbox must not know the games' tables. The model's state moves in infra/migrations/0001,
which this one follows. The admin's content type (and so its permissions) follows the model.
"""

import django.db.models.deletion
from django.db import migrations, models


def content_type_to_infra(apps, schema_editor):
    _move_content_type(apps, schema_editor, "games", "infra")


def content_type_to_games(apps, schema_editor):
    _move_content_type(apps, schema_editor, "infra", "games")


def _move_content_type(apps, schema_editor, old, new):
    content_types = apps.get_model("contenttypes", "ContentType").objects.using(
        schema_editor.connection.alias
    )
    if not content_types.filter(app_label=new, model="outboxemail").exists():
        content_types.filter(app_label=old, model="outboxemail").update(app_label=new)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0017_quick_play"),
        ("infra", "0001_outbox"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterField(
                    model_name="outboxemail",
                    name="game",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        db_constraint=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.game",
                    ),
                ),
                migrations.RenameIndex(
                    model_name="outboxemail",
                    new_name="infra_outbox_pending",
                    old_name="games_outbox_pending",
                ),
                migrations.AlterModelTable(name="outboxemail", table="infra_outboxemail"),
            ],
            state_operations=[migrations.DeleteModel(name="OutboxEmail")],
        ),
        migrations.RunPython(content_type_to_infra, content_type_to_games),
    ]
