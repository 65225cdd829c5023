"""The outbox's one table (infra/outbox.py writes and sends its rows)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class OutboxEmail(models.Model):
    """One email (or Web Push) to send, written in the transaction of the change that caused it
    (infra/outbox.py sends it).

    Delivery is at least once, never an hour late: a sender claims the row for longer than a
    send may take, sends it, and marks it sent; the sweep queues again the rows that are due and
    unclaimed, or whose claim ran out because their sender died. A repeat carries the row's own
    Message-ID, so a mail client shows it once. A row marked sent is never sent again.

    The table was games' until issue 35 (games/migrations/0018 moved it here, rows and all).
    """

    class Status(models.TextChoices):
        PENDING = "pending", "waiting to be sent"
        SENT = "sent", "sent"
        DROPPED = "dropped", "no longer wanted or true when its turn came"
        FAILED = "failed", "refused by the mail server every time"

    class Channel(models.TextChoices):
        EMAIL = "email", "email"
        PUSH = "push", "Web Push to the player's subscribed browsers"

    # Which app's message this is, and so how it is built (infra/outbox.py `register`): a
    # notice's kind (games/notices/notice.py), "digest", or "account" (allauth's emails).
    kind = models.CharField(max_length=20)
    # How it goes out: an email, or a Web Push (accounts.User.push_instead_of_email).
    channel = models.CharField(max_length=5, choices=Channel.choices, default=Channel.EMAIL)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    # The address of an account email (it may not be confirmed yet); a notice goes to the
    # user's address as it is when it is sent.
    address = models.EmailField(max_length=254, blank=True)
    # The game a notice is about, by its id alone: the outbox lies below the games and knows
    # none of their tables (a game's notices look it up when they are built).
    game_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    version = models.PositiveIntegerField(default=0)  # the game's state the notice is about
    # The notice's details; for an account email its subject, text and HTML until it is sent.
    data = models.JSONField(default=dict, blank=True)
    # At most one row per key: a reader's digest of one day.
    key = models.CharField(max_length=100, unique=True, null=True, blank=True)
    message_id = models.CharField(max_length=255, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    due_at = models.DateTimeField(default=timezone.now)  # later after a failed attempt
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["due_at"], condition=Q(status="pending"), name="infra_outbox_pending"
            )
        ]

    def __str__(self):
        return f"{self.kind} email {self.pk} ({self.status})"
