"""Helpers of the second-factor tests: codes of an authenticator app, and setting one up."""

import base64
import hashlib
import hmac
import re
import struct
import time

from django.urls import reverse


def totp_code(secret: str, at: float | None = None, digits: int = 6) -> str:
    """The code an authenticator app shows for `secret` (base32) at time `at`: RFC 6238 with
    its defaults (HMAC-SHA1, 30 s steps), written here from the RFC rather than taken from
    allauth, so that the tests check allauth against the standard."""
    key = base64.b32decode(secret, casefold=True)
    step = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = int.from_bytes(digest[offset : offset + 4], "big") & 0x7FFFFFFF
    return f"{value % 10**digits:0{digits}d}"


def confirm_password(client, password: str) -> None:
    """Confirm it is you (allauth asks again for the password before a change of the second
    factor, even right after logging in)."""
    answer = client.post(reverse("account_reauthenticate"), {"password": password})
    assert answer.status_code == 302, answer.content.decode()[:2000]


def set_up_authenticator(client, password: str) -> str:
    """Set up an authenticator app through allauth's pages, as a player would: confirm the
    password, read the secret off the page (the QR code holds the same), answer with the app's
    code. Returns the secret."""
    asked = client.get(reverse("mfa_activate_totp"))
    assert asked.status_code == 302
    assert asked["Location"].startswith(reverse("account_reauthenticate"))
    confirm_password(client, password)
    page = client.get(reverse("mfa_activate_totp"))
    assert page.status_code == 200, page
    secret = re.search(
        r'id="authenticator_secret"[^>]*value="([A-Z2-7=]+)"', page.content.decode(), re.S
    )[1]
    done = client.post(reverse("mfa_activate_totp"), {"code": totp_code(secret)})
    assert done.status_code == 302, done.content.decode()[:2000]
    return secret


def recovery_codes(client, password: str) -> list[str]:
    """The unused recovery codes, from their page (after confirming the password if asked)."""
    page = client.get(reverse("mfa_view_recovery_codes"))
    if page.status_code == 302:
        assert page["Location"].startswith(reverse("account_reauthenticate"))
        confirm_password(client, password)
        page = client.get(reverse("mfa_view_recovery_codes"))
    page = page.content.decode()
    return re.search(r'<textarea[^>]*id="recovery_codes"[^>]*>(.*?)</textarea>', page, re.S)[
        1
    ].split()
