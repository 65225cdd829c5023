"""Web Push: the browsers subscribed to a player's notices."""

from django.conf import settings
from django.db import models


class PushSubscription(models.Model):
    """One browser that asked for Web Push messages (the settings page, on that device): where its
    push service takes them (`endpoint`) and the keys to encrypt them for it (RFC 8291). A push
    service that answers 404 or 410 for it has forgotten it, and so does the site
    (games/notices/webpush.py)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    # One an account and endpoint: another account that posts the same endpoint gets one of its
    # own, never this one (issue 34: it was found by its endpoint alone, and taken over).
    endpoint = models.URLField(max_length=1000)
    p256dh = models.CharField(max_length=200)  # the browser's public key, base64url
    auth = models.CharField(max_length=100)  # the shared authentication secret, base64url
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "endpoint"], name="games_pushsubscription_one_per_account"
            )
        ]

    def __str__(self):
        return f"push subscription {self.pk} of user {self.user_id}"

    @property
    def info(self) -> dict:
        """The subscription as the Push API's PushSubscription.toJSON() says it (pywebpush)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
