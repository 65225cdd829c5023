"""Web Push: a notice as a message to the browsers a player subscribed, even with no tab open.

A push is a channel of the same notice decision as an email (games/notices/notice.py): for a
player who chose "push notifications instead of emails" (accounts.User.push_instead_of_email)
and has at least one subscribed browser, `delivery.add_notices` writes the notice's outbox row
with channel "push" instead of "email", in the change's transaction; the task that sends the
outbox's rows (`infra.send_email`, infra/outbox.py) sends it here (`delivery.push`), after the
same checks (the player still wants it, is not watching the game, it is still true:
`emails.notice_context`).

Each message is encrypted for its browser (RFC 8291, aes128gcm) and signed with the site's
VAPID key (RFC 8292; settings.VAPID_PRIVATE_KEY, microchip_site/vapid_keys.py) by pywebpush.
Its payload is JSON: ``{"title", "body", "url", "tag"}``; the service worker
(templates/sw.js) shows it, and a click opens the game. A push service that answers 404 or 410
has forgotten the subscription, so the site deletes it.
"""

import json
import logging

from django.conf import settings
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from games.models import PushSubscription
from games.notices.emails import as_recipient, game_url, notice_subject
from games.notices.notice import FINISH, GAME_STARTED, REMINDER, YOUR_TURN
from infra.models import OutboxEmail
from infra.outbox import MAX_BROWSERS, SendFailed

logger = logging.getLogger(__name__)

# A push goes to MAX_BROWSERS browsers at most (the newest used), so that one send stays well
# within the task's time limit (infra/outbox.py SEND_TIME_LIMIT) at settings.PUSH_TIMEOUT each.
GONE = (404, 410)


class PushFailed(SendFailed):
    """No browser took the message, and at least one push service failed (try again later)."""


def has_browsers(user_ids) -> set[int]:
    """The players among `user_ids` with at least one subscribed browser (one query)."""
    rows = PushSubscription.objects.filter(user_id__in=user_ids).values_list("user_id", flat=True)
    return set(rows.distinct())


def payload(row: OutboxEmail, context: dict) -> dict:
    """What the notification shows: the email's subject as its title, the game's players and
    deadline as its body, the game's address to open; in the player's language."""
    user = row.user
    body = []
    with as_recipient(user):  # their language, their time zone
        if context.get("opponents"):
            # Translators: a push notification's line: the other players of the game.
            body.append(_("Against %(names)s.") % {"names": ", ".join(context["opponents"])})
        deadline = context.get("deadline")
        if deadline and row.kind in (YOUR_TURN, FINISH, REMINDER, GAME_STARTED):
            when = formats.date_format(timezone.localtime(deadline), "D j M, H:i")
            body.append(_("Deadline: %(when)s.") % {"when": when})
        title = notice_subject(row.kind, user, context)
    return {
        "title": title,
        "body": " ".join(body),
        "url": game_url(row.game_id),
        "tag": f"game-{row.game_id}",
    }


def deliver(row: OutboxEmail, message: dict) -> int:
    """Send `message` to the browsers of the row's player; return to how many it went. A browser
    whose push service forgot it is deleted; raises PushFailed if none took it and one failed."""
    # Here, not at the top: pywebpush brings aiohttp and more (0.3 s of CPU to import), and this
    # module is imported by every process that sets Django up (games/apps.py registers the
    # outbox's senders): the web processes and every manage.py command, which never send one.
    from pywebpush import WebPushException, webpush

    data = json.dumps(message, separators=(",", ":"))
    subscriptions = PushSubscription.objects.filter(user_id=row.user_id).order_by(
        "-last_used", "-created"
    )
    delivered, failures = 0, []
    for subscription in subscriptions[:MAX_BROWSERS]:
        try:
            webpush(
                subscription_info=subscription.info,
                data=data,
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT},  # pywebpush adds aud and exp
                content_encoding="aes128gcm",
                ttl=settings.PUSH_TTL,
                timeout=settings.PUSH_TIMEOUT,
                headers={"Urgency": "high"},
            )
        except WebPushException as error:
            status = getattr(error.response, "status_code", None)
            if status in GONE:
                logger.info("webpush: subscription %s is gone (%s)", subscription.pk, status)
                subscription.delete()
            else:
                failures.append(error)
            continue
        except OSError as error:  # refused, unreachable, timed out (requests' errors included)
            failures.append(error)
            continue
        delivered += 1
        PushSubscription.objects.filter(pk=subscription.pk).update(last_used=timezone.now())
    if not delivered and failures:
        raise PushFailed("; ".join(repr(failure)[:90] for failure in failures))
    return delivered
