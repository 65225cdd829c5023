"""Web Push's pages: the service worker, and a browser's subscription to the player's pushes.

The settings page (games/static/games/push.js) registers the service worker (`/sw.js`, the site's
whole scope), subscribes with the site's VAPID public key and posts the subscription here; turning
it off posts its endpoint to `unsubscribe`. Both are JSON, for a signed-in player, and
CSRF-protected (the X-CSRFToken header the pages send).
"""

import base64
import binascii
import json
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games.models import PushSubscription

# A player's browsers at most; subscribing one more forgets the one used longest ago.
MAX_SUBSCRIPTIONS = 10
MAX_BODY = 4000  # bytes; a subscription is well under 1000
_https_url = URLValidator(schemes=["https"])


@require_GET
@never_cache
def service_worker(request):
    """The service worker, from the root so that its scope is the whole site."""
    response = render(request, "sw.js", content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


def _decoded(value, size: int) -> bool:
    """Whether `value` is base64url of `size` bytes."""
    if not isinstance(value, str) or len(value) > 200:
        return False
    try:
        return len(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))) == size
    except (binascii.Error, ValueError):
        return False


def _known_push_service(endpoint: str) -> bool:
    """Whether the endpoint's host is one of settings.PUSH_SERVICE_HOSTS or below one."""
    allowed = settings.PUSH_SERVICE_HOSTS
    host = (urlsplit(endpoint).hostname or "").lower()
    return "*" in allowed or any(host == h or host.endswith("." + h) for h in allowed)


def _json(request):
    if not request.user.is_authenticated:
        return None, JsonResponse({"error": "not signed in"}, status=403)
    if len(request.body) > MAX_BODY:
        return None, JsonResponse({"error": "too long"}, status=400)
    try:
        data = json.loads(request.body)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return None, JsonResponse({"error": "not a JSON object"}, status=400)
    return data, None


@require_POST
def subscribe(request):
    """Keep this browser's push subscription (PushSubscription.toJSON()) for the player."""
    data, refused = _json(request)
    if refused:
        return refused
    endpoint, keys = data.get("endpoint"), data.get("keys")
    try:
        _https_url(endpoint)
    except (ValidationError, TypeError):
        return JsonResponse({"error": "the endpoint is not an https URL"}, status=400)
    if not _known_push_service(endpoint):
        return JsonResponse({"error": "not a push service this site sends to"}, status=400)
    if (
        len(endpoint) > 1000
        or not isinstance(keys, dict)
        or not _decoded(keys.get("p256dh"), 65)
        or not _decoded(keys.get("auth"), 16)
    ):
        return JsonResponse({"error": "not a push subscription"}, status=400)
    PushSubscription.objects.update_or_create(
        user=request.user,
        endpoint=endpoint,
        defaults={"p256dh": keys["p256dh"], "auth": keys["auth"]},
    )
    mine = PushSubscription.objects.filter(user=request.user).order_by("-last_used", "-created")
    extra = list(mine.values_list("pk", flat=True)[MAX_SUBSCRIPTIONS:])
    if extra:
        PushSubscription.objects.filter(pk__in=extra).delete()
    return JsonResponse({"subscribed": True})


@require_POST
def unsubscribe(request):
    """Forget this browser's push subscription (its endpoint) for the player."""
    data, refused = _json(request)
    if refused:
        return refused
    endpoint = data.get("endpoint")
    if not isinstance(endpoint, str):
        return JsonResponse({"error": "no endpoint"}, status=400)
    PushSubscription.objects.filter(user=request.user, endpoint=endpoint).delete()
    return JsonResponse({"subscribed": False})
