"""Web Push in Chromium: the settings page registers the service worker (/sw.js); a push message,
delivered to it through the DevTools protocol as a push service would, shows a notification, and
its click opens the game (templates/sw.js). The encrypted delivery itself from the server to a
push service is tested in tests/email/test_webpush.py."""

import json
import time

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from games.models import PushSubscription
from games.notices import webpush
from games.notices.emails import notice_context
from infra.models import OutboxEmail
from microchip_site.vapid_keys import b64url
from tests.games.playing import draft_the_top_tile

from .helpers import TIMEOUT

pytestmark = pytest.mark.servers

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map(n => ({
    title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url,
  }));
}"""

# There is no way to click a notification from a test: the worker is made to handle a
# notificationclick event (its own handler, as a click runs it) for the notification it shows.
CLICK = """async () => {
  const [notification] = await self.registration.getNotifications();
  self.dispatchEvent(new NotificationEvent("notificationclick", {notification}));
}"""


def wait_for(predicate, what, timeout=TIMEOUT / 1000):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_push_shows_a_notification_and_its_click_opens_the_game(
    open_page, start_game, server, committed, settings
):
    settings.SITE_URL = server.url  # as the server's own settings say
    game = start_game(2)
    # A move makes it the other player's: the outbox has the notice, and the test delivers the
    # push the site makes of it.
    mover = draft_the_top_tile(game, committed)
    waiter = game.seats.exclude(user=mover).get().user
    row = OutboxEmail.objects.filter(user=waiter, kind="your_turn").latest("pk")
    message = webpush.payload(row, notice_context(row))

    page = open_page(waiter)
    context = page.context
    context.grant_permissions(["notifications"], origin=server.url)
    cdp = context.new_cdp_session(page)
    registrations = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")

    page.goto("/settings/")
    page.evaluate("() => navigator.serviceWorker.register('/sw.js', {scope: '/'})")
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    wait_for(lambda: page.evaluate("() => !!navigator.serviceWorker.controller"), "control")
    registration = wait_for(
        lambda: next(
            (r for r in registrations if r["scopeURL"] == f"{server.url}/" and not r["isDeleted"]),
            None,
        ),
        "the registration",
    )

    def deliver():
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": server.url,
                "registrationId": registration["registrationId"],
                "data": json.dumps(message),
            },
        )

    # Delivered again if nothing shows within a few seconds: on a loaded machine the browser
    # may take the first delivery before its worker is running again (it stops idle workers).
    # One notification still, since a game's notifications share their tag.
    shown = []
    for _ in range(3):
        deliver()
        try:
            shown = wait_for(lambda: page.evaluate(NOTIFICATIONS), "the notification", 5)
            break
        except AssertionError:
            continue
    assert shown, "no notification after three deliveries"
    [shown] = shown
    assert shown == {
        "title": f"Your move in {game.title}",
        "body": message["body"],
        "tag": f"game-{game.pk}",
        "url": f"{server.url}/games/{game.pk}/",
    }
    assert message["body"].startswith(f"Against {mover.username}.")

    [worker] = [w for w in context.service_workers if w.url == f"{server.url}/sw.js"]
    worker.evaluate(CLICK)
    page.wait_for_url(f"{server.url}/games/{game.pk}/", timeout=TIMEOUT)
    page.wait_for_selector("#game", timeout=TIMEOUT)
    assert page.evaluate(NOTIFICATIONS) == []  # the click closed it
    assert page.errors == []


# Headless Chromium has no push service to subscribe with ("Registration failed - permission
# denied"), so the browser's PushManager is stood in for: subscribing returns a subscription
# with an endpoint and keys of the test's, as a push service would.
FAKE_PUSH_MANAGER = """
(() => {
  let current = null;
  PushManager.prototype.subscribe = function (options) {
    window.__applicationServerKey = Array.from(new Uint8Array(options.applicationServerKey));
    window.__userVisibleOnly = options.userVisibleOnly;
    current = {
      endpoint: "https://fcm.googleapis.com/fcm/send/device-1",
      toJSON() { return {endpoint: this.endpoint, keys: {p256dh: "%s", auth: "%s"}}; },
      unsubscribe() { current = null; return Promise.resolve(true); },
    };
    return Promise.resolve(current);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(current); };
})();
"""


def test_the_settings_page_subscribes_this_browser_and_unsubscribes_it(
    open_page, make_player, server
):
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    p256dh = b64url(key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
    auth = b64url(b"0123456789abcdef")
    ada = make_player("ada")
    page = open_page(ada)
    page.context.grant_permissions(["notifications"], origin=server.url)
    page.context.add_init_script(FAKE_PUSH_MANAGER % (p256dh, auth))

    page.goto("/settings/")
    toggle = page.locator("#push-toggle")
    assert toggle.inner_text() == "Turn on push notifications in this browser"
    toggle.click()
    page.wait_for_selector('#push[data-subscribed="true"]', state="attached", timeout=TIMEOUT)
    assert page.inner_text("#push-state").startswith("On: ")
    [subscription] = PushSubscription.objects.filter(user=ada)
    assert (subscription.endpoint, subscription.p256dh, subscription.auth) == (
        "https://fcm.googleapis.com/fcm/send/device-1",
        p256dh,
        auth,
    )
    # It subscribed with the site's VAPID public key (a P-256 point), for notifications it shows.
    sent_key = bytes(page.evaluate("() => window.__applicationServerKey"))
    assert len(sent_key) == 65 and sent_key[0] == 4
    assert b64url(sent_key) == page.get_attribute("#push", "data-key")
    assert page.evaluate("() => window.__userVisibleOnly") is True
    # The service worker is registered for the whole site.
    scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
    assert scope == f"{server.url}/"

    toggle.click()
    page.wait_for_selector('#push[data-subscribed="false"]', state="attached", timeout=TIMEOUT)
    assert toggle.inner_text() == "Turn on push notifications in this browser"
    assert not PushSubscription.objects.filter(user=ada).exists()
    assert page.errors == []
