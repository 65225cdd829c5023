"""The outbox's table, which was games' (games.OutboxEmail) until issue 35.

Only the migration state is made here: the table itself is games' own, created by
games/migrations/0005 and renamed to infra_outboxemail, rows and all, by games/migrations/0018,
which depends on this one. So a database migrated before keeps every row, and a new one gets
the same table by the same path. (The outbox below the games must not depend on their
migrations: the dependency runs the other way.)
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="OutboxEmail",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("kind", models.CharField(max_length=20)),
                        (
                            "channel",
                            models.CharField(
                                choices=[
                                    ("email", "email"),
                                    ("push", "Web Push to the player's subscribed browsers"),
                                ],
                                default="email",
                                max_length=5,
                            ),
                        ),
                        ("address", models.EmailField(blank=True, max_length=254)),
                        ("game_id", models.BigIntegerField(blank=True, db_index=True, null=True)),
                        ("version", models.PositiveIntegerField(default=0)),
                        ("data", models.JSONField(blank=True, default=dict)),
                        (
                            "key",
                            models.CharField(blank=True, max_length=100, null=True, unique=True),
                        ),
                        ("message_id", models.CharField(max_length=255, unique=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "waiting to be sent"),
                                    ("sent", "sent"),
                                    ("dropped", "no longer wanted or true when its turn came"),
                                    ("failed", "refused by the mail server every time"),
                                ],
                                default="pending",
                                max_length=10,
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("due_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("claimed_until", models.DateTimeField(blank=True, null=True)),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        ("last_error", models.CharField(blank=True, max_length=200)),
                        (
                            "user",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "indexes": [
                            models.Index(
                                condition=models.Q(("status", "pending")),
                                fields=["due_at"],
                                name="infra_outbox_pending",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
