"""Web Push (games/notices/webpush.py): a player who chose pushes instead of emails gets each
notice as an encrypted, VAPID-signed message at their browser's push service, through the
outbox like an email. The push service here is a real HTTP server on the loopback; the test
holds the browser's keys, decrypts each message (RFC 8291) and checks its signature (RFC 8292)."""

import base64
import json
import os
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core import mail
from django.test import Client

from games import presence
from games.models import PushSubscription
from infra import outbox
from infra.models import OutboxEmail
from microchip_site.vapid_keys import local_vapid_keys
from tests.games.playing import draft_the_top_tile

pytestmark = pytest.mark.django_db


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """What a browser keeps of one push subscription: its P-256 key pair and auth secret."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    @property
    def p256dh(self) -> str:
        point = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return b64url(point)

    def decrypt(self, body: bytes) -> dict:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


@contextmanager
def push_service(statuses=(201,)):
    """A push service on 127.0.0.1: records each POST (path, headers, body) and answers with the
    next of `statuses` (the last one again when they run out)."""
    received, answers = [], list(statuses)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {name.lower(): value for name, value in self.headers.items()}
            received.append((self.path, headers, body))
            status = answers.pop(0) if len(answers) > 1 else answers[0]
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def subscribe(user, service_url, browser, name="device"):
    return PushSubscription.objects.create(
        user=user,
        endpoint=f"{service_url}/push/{name}",
        p256dh=browser.p256dh,
        auth=b64url(browser.auth),
    )


def wants_pushes(user):
    user.push_instead_of_email = True
    user.save(update_fields=["push_instead_of_email"])


def check_vapid(headers, audience):
    """The Authorization header (`headers`: names in lower case) is `vapid t=<JWT>, k=<key>`:
    the site's key signed the JWT (ES256) for this push service's origin, with the site's
    contact, not yet expired."""
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == settings.VAPID_PUBLIC_KEY
    signed, _, signature = fields["t"].rpartition(".")
    header, claims = (json.loads(unb64url(part)) for part in signed.split("."))
    assert header["alg"] == "ES256"
    assert claims["aud"] == audience
    assert claims["sub"] == settings.VAPID_SUBJECT
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    raw = unb64url(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), unb64url(settings.VAPID_PUBLIC_KEY)
    )
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged


def test_the_next_player_gets_an_encrypted_signed_push_instead_of_an_email(start_game, committed):
    game = start_game(2)
    second = game.seats.get(number=1).user
    wants_pushes(second)
    browser = Browser()
    mail.outbox.clear()

    with push_service() as (url, received):
        subscription = subscribe(second, url, browser)
        mover = draft_the_top_tile(game, committed)

    assert [message.to for message in mail.outbox if message.to == [second.email]] == []
    [(path, headers, body)] = received
    assert path == "/push/device"
    assert headers["content-encoding"] == "aes128gcm"
    assert int(headers["ttl"]) == settings.PUSH_TTL
    check_vapid(headers, url)
    message = browser.decrypt(body)
    assert message["title"] == f"Your move in {game.title}"
    assert message["body"].startswith(f"Against {mover.username}. Deadline: ")
    assert message["url"] == f"http://localhost:8000/games/{game.pk}/"
    assert message["tag"] == f"game-{game.pk}"
    row = OutboxEmail.objects.get(user=second, kind="your_turn")
    assert (row.channel, row.status) == ("push", "sent")
    subscription.refresh_from_db()
    assert subscription.last_used is not None


def test_every_subscribed_browser_gets_it_and_a_forgotten_one_is_deleted(start_game, committed):
    game = start_game(2)
    second = game.seats.get(number=1).user
    wants_pushes(second)
    phone, laptop = Browser(), Browser()

    with push_service(statuses=(410, 201)) as (url, received):
        subscribe(second, url, phone, "phone")
        subscribe(second, url, laptop, "laptop")
        draft_the_top_tile(game, committed)

    assert len(received) == 2
    _gone, kept = received  # the first answered 410 Gone
    assert PushSubscription.objects.filter(user=second).count() == 1
    survivor = PushSubscription.objects.get(user=second)
    assert survivor.endpoint.endswith(kept[0])
    browser = laptop if kept[0] == "/push/laptop" else phone
    assert browser.decrypt(kept[2])["title"] == f"Your move in {game.title}"
    assert OutboxEmail.objects.get(user=second, kind="your_turn").status == "sent"


def test_a_failing_push_service_is_tried_again_later(start_game, committed):
    game = start_game(2)
    second = game.seats.get(number=1).user
    wants_pushes(second)

    with push_service(statuses=(503, 201)) as (url, received):
        subscribe(second, url, Browser())
        draft_the_top_tile(game, committed)
        row = OutboxEmail.objects.get(user=second, kind="your_turn")
        assert (row.status, row.attempts) == ("pending", 1)
        assert "503" in row.last_error
        OutboxEmail.objects.filter(pk=row.pk).update(due_at=row.created_at)
        assert outbox.send(row.pk) == "sent"

    assert len(received) == 2
    assert PushSubscription.objects.filter(user=second).exists()  # a failure is not "gone"


def test_without_a_subscribed_browser_the_notices_stay_emails(start_game, committed):
    game = start_game(2)
    second = game.seats.get(number=1).user
    wants_pushes(second)
    mail.outbox.clear()

    draft_the_top_tile(game, committed)

    assert [message.to for message in mail.outbox] == [[second.email]]
    assert OutboxEmail.objects.get(user=second, kind="your_turn").channel == "email"


def test_a_push_whose_browsers_all_unsubscribed_meanwhile_goes_as_an_email(
    start_game, committed, lost_tasks
):
    game = start_game(2)
    second = game.seats.get(number=1).user
    wants_pushes(second)
    lost = lost_tasks("infra.send_email")
    with push_service() as (url, received):
        subscribe(second, url, Browser())
        draft_the_top_tile(game, committed)
        [task] = lost
        row = OutboxEmail.objects.get(pk=task.args[0])
        assert row.channel == "push"
        PushSubscription.objects.filter(user=second).delete()
        mail.outbox.clear()
        assert outbox.send(row.pk) == "sent"
    assert received == []
    assert [message.to for message in mail.outbox] == [[second.email]]
    row.refresh_from_db()
    assert row.channel == "email"


def test_no_push_while_the_player_watches_the_game(start_game, committed):
    game = start_game(2)
    second = game.seats.get(number=1).user
    wants_pushes(second)
    with push_service() as (url, received):
        subscribe(second, url, Browser())
        presence.arrive(game.pk, second.pk, "channel-1")
        try:
            draft_the_top_tile(game, committed)
        finally:
            presence.depart(game.pk, second.pk, "channel-1")
    assert received == []
    assert not OutboxEmail.objects.filter(user=second, kind="your_turn").exists()


# --- the browser's side: subscribing, the service worker, the setting --------------------------


def subscription_json(endpoint="https://fcm.googleapis.com/fcm/send/abc", browser=None):
    browser = browser or Browser()
    return {"endpoint": endpoint, "keys": {"p256dh": browser.p256dh, "auth": b64url(browser.auth)}}


def post_json(client, url, data, **extra):
    return client.post(url, json.dumps(data), content_type="application/json", **extra)


def csrf_client(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/settings/")  # sets the CSRF cookie
    return client, client.cookies["csrftoken"].value


def test_a_browser_subscribes_and_unsubscribes_with_the_csrf_token(players):
    ada = players[0]
    client, token = csrf_client(ada)
    data = subscription_json()

    assert post_json(client, "/push/subscribe/", data).status_code == 403  # no token
    answer = post_json(client, "/push/subscribe/", data, HTTP_X_CSRFTOKEN=token)
    assert (answer.status_code, answer.json()) == (200, {"subscribed": True})
    [subscription] = PushSubscription.objects.filter(user=ada)
    assert subscription.endpoint == data["endpoint"]
    assert subscription.p256dh == data["keys"]["p256dh"]
    # The same browser again (new keys) is the same subscription.
    again = subscription_json(browser=Browser())
    assert post_json(client, "/push/subscribe/", again, HTTP_X_CSRFTOKEN=token).status_code == 200
    assert PushSubscription.objects.get(user=ada).auth == again["keys"]["auth"]

    gone = {"endpoint": data["endpoint"]}
    answer = post_json(client, "/push/unsubscribe/", gone, HTTP_X_CSRFTOKEN=token)
    assert (answer.status_code, answer.json()) == (200, {"subscribed": False})
    assert not PushSubscription.objects.filter(user=ada).exists()


def test_subscribing_refuses_what_is_not_a_push_subscription(players):
    client, token = csrf_client(players[0])
    browser = Browser()
    bad = [
        subscription_json("http://fcm.googleapis.com/plain-http"),
        subscription_json("file:///etc/passwd"),
        {"endpoint": "https://fcm.googleapis.com/x", "keys": {"p256dh": "short", "auth": "x"}},
        {"endpoint": "https://fcm.googleapis.com/x"},
        ["not", "an", "object"],
        subscription_json("https://fcm.googleapis.com/" + "x" * 1000, browser),
        subscription_json("https://intranet.example/not-a-push-service"),
        subscription_json("https://fcm.googleapis.com.evil.example/send/x"),
    ]
    for data in bad:
        answer = post_json(client, "/push/subscribe/", data, HTTP_X_CSRFTOKEN=token)
        assert answer.status_code == 400, data
    answer = client.post(
        "/push/subscribe/", "{", content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert answer.status_code == 400
    assert not PushSubscription.objects.exists()
    assert Client().get("/push/subscribe/").status_code == 405
    anonymous = post_json(Client(), "/push/subscribe/", subscription_json())
    assert anonymous.status_code == 403


def test_a_subscription_is_its_accounts_own_and_no_other_account_takes_it_over(players):
    """A subscription is kept by account and endpoint (issue 34): another account that posts
    the same endpoint (with keys of its own) gets a subscription of its own; the first
    account's keys and pushes stay, and only its own account removes it."""
    ada, brian = players[:2]
    data = subscription_json()
    client, token = csrf_client(ada)
    post_json(client, "/push/subscribe/", data, HTTP_X_CSRFTOKEN=token)
    taken = subscription_json(data["endpoint"], Browser())
    client, token = csrf_client(brian)
    post_json(client, "/push/subscribe/", taken, HTTP_X_CSRFTOKEN=token)

    mine = PushSubscription.objects.get(user=ada)
    assert (mine.endpoint, mine.auth) == (data["endpoint"], data["keys"]["auth"])
    assert PushSubscription.objects.get(user=brian).auth == taken["keys"]["auth"]
    # Brian cannot remove Ada's.
    post_json(client, "/push/unsubscribe/", {"endpoint": data["endpoint"]}, HTTP_X_CSRFTOKEN=token)
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [ada.pk]


def test_the_service_worker_is_served_from_the_root():
    answer = Client().get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Service-Worker-Allowed"] == "/"
    assert "no-cache" in answer["Cache-Control"]
    text = answer.content.decode()
    assert 'addEventListener("push"' in text and 'addEventListener("notificationclick"' in text


def test_the_settings_page_offers_pushes_with_the_sites_public_key(players):
    ada = players[0]
    client = Client()
    client.force_login(ada)
    page = client.get("/settings/").content.decode()
    assert f'data-key="{settings.VAPID_PUBLIC_KEY}"' in page
    assert 'id="push-toggle"' in page and 'id="notifications-toggle"' in page
    form = client.get("/settings/").context["form"]
    data = {name: value for name, value in form.initial.items() if name in form.fields}
    data = {name: value for name, value in data.items() if value not in (False, None)}
    data["push_instead_of_email"] = "on"
    assert client.post("/settings/", data).status_code == 302
    ada.refresh_from_db()
    assert ada.push_instead_of_email


def test_a_local_vapid_key_pair_is_made_once_and_kept(tmp_path):
    path = tmp_path / "var" / "vapid_keys"
    private, public = local_vapid_keys(path)
    assert local_vapid_keys(path) == (private, public)
    assert path.stat().st_mode & 0o777 == 0o600
    key = ec.derive_private_key(int.from_bytes(unb64url(private), "big"), ec.SECP256R1())
    point = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert b64url(point) == public


def test_each_browsers_own_push_service_is_accepted_and_the_list_is_a_setting(players, settings):
    client, token = csrf_client(players[0])
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/a",
        "https://updates.push.services.mozilla.com/wpush/v2/b",
        "https://web.push.apple.com/c",
        "https://wns2-db5p.notify.windows.com/w/?token=d",
    ):
        answer = post_json(
            client, "/push/subscribe/", subscription_json(endpoint), HTTP_X_CSRFTOKEN=token
        )
        assert answer.status_code == 200, endpoint
    settings.PUSH_SERVICE_HOSTS = ["push.example"]
    mine = subscription_json("https://push.example/e")
    assert post_json(client, "/push/subscribe/", mine, HTTP_X_CSRFTOKEN=token).status_code == 200
    other = subscription_json("https://fcm.googleapis.com/fcm/send/f")
    assert post_json(client, "/push/subscribe/", other, HTTP_X_CSRFTOKEN=token).status_code == 400
