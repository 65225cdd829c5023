"""Sign-ups are limited per address (SIGNUP_RATE_LIMIT, counted by accounts/views.py).

These tests use the production limit itself: 20 an hour (and 100 a day) from one address.
"""

import json
from datetime import UTC, datetime

import pytest
import time_machine
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.conftest import settings_in_a_new_process

# Committed for real: the account emails leave through the outbox after the commit.
pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-Passphrase-42"
PER_HOUR = 20


@pytest.fixture
def clock():
    with time_machine.travel(datetime(2030, 3, 4, 12, 0, tzinfo=UTC), tick=False) as traveller:
        yield traveller


def sign_up(name, address="203.0.113.7", **extra):
    return Client(REMOTE_ADDR=address, **extra).post(
        reverse("account_signup"),
        {
            "username": name,
            "email": f"{name}@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def people():
    return set(User.objects.filter(bot_level__isnull=True).values_list("username", flat=True))


def test_the_production_limit_is_20_an_hour_and_100_a_day_per_address():
    assert django_settings.SIGNUP_RATE_LIMIT == "20/h/ip,100/d/ip"


def test_the_sign_up_past_the_limit_gets_429_creates_nobody_and_says_when(clock, mailoutbox):
    for n in range(PER_HOUR):
        clock.shift(60)  # one a minute: a steady stream, not a burst
        response = sign_up(f"player{n}")
        assert response.status_code == 302, response.content.decode()[:300]
    assert len(people()) == PER_HOUR
    assert len(mailoutbox) == PER_HOUR

    clock.shift(60)
    response = sign_up("one-too-many")

    assert response.status_code == 429
    assert response.templates[0].name == "429.html"
    body = response.content.decode()
    # The first of the 20 was 20 minutes ago: a place frees up when it is an hour old.
    assert "Too many sign-ups from your address. Try again in 40 minutes." in body
    assert response["Retry-After"] == str(40 * 60)
    assert "one-too-many" not in people()
    assert len(mailoutbox) == PER_HOUR  # no confirmation email either

    clock.shift(40 * 60)
    assert sign_up("one-too-many").status_code == 302
    assert "one-too-many" in people()


def test_another_address_is_not_affected(clock, mailoutbox):
    for n in range(PER_HOUR):
        assert sign_up(f"player{n}").status_code == 302
    assert sign_up("blocked").status_code == 429

    assert sign_up("neighbour", address="198.51.100.20").status_code == 302
    assert "neighbour" in people() and "blocked" not in people()


def test_a_forged_forwarded_for_header_does_not_get_round_the_limit(clock, mailoutbox):
    for n in range(PER_HOUR):
        assert sign_up(f"player{n}").status_code == 302

    forged = sign_up("forger", HTTP_X_FORWARDED_FOR="192.0.2.99")

    assert forged.status_code == 429
    assert "forger" not in people()


def test_behind_a_trusted_proxy_each_client_address_is_counted(clock, mailoutbox, settings):
    """With TRUSTED_PROXY_COUNT=1 the client is the address the proxy adds to X-Forwarded-For."""
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.1"
    for n in range(PER_HOUR):
        response = sign_up(f"player{n}", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.7")
        assert response.status_code == 302
    assert sign_up("blocked", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 429

    other_client = sign_up("other", address=proxy, HTTP_X_FORWARDED_FOR="198.51.100.20")

    assert other_client.status_code == 302
    assert "other" in people()


def test_showing_the_form_is_not_counted(clock, mailoutbox):
    for _ in range(PER_HOUR + 5):
        assert Client(REMOTE_ADDR="203.0.113.7").get(reverse("account_signup")).status_code == 200
    assert sign_up("ada").status_code == 302


PROBE = """
import json, django
from django.conf import settings
django.setup()
limits = {
    **settings.ACCOUNT_RATE_LIMITS,
    "signup": settings.SIGNUP_RATE_LIMIT,
    "login_failed": settings.LOGIN_FAILED_RATE_LIMIT,
    "allauth_login_failed": settings.ACCOUNT_RATE_LIMITS["login_failed"],
}
print(json.dumps([limits, settings.ALLAUTH_TRUSTED_PROXY_COUNT]))
"""


def read_account_limits(tmp_path, **environment):
    return settings_in_a_new_process(PROBE, tmp_path, **environment)


@pytest.mark.slow
def test_the_account_limits_come_from_the_environment(tmp_path):
    result = read_account_limits(tmp_path)
    assert result.returncode == 0, result.stderr
    limits, proxies = json.loads(result.stdout)
    assert limits == {
        "signup": "20/h/ip,100/d/ip",
        "login": "30/m/ip",
        "login_failed": "10/m/ip,5/5m/key",
        "allauth_login_failed": "5/5m/key",  # wrong second-factor codes
        "reset_password": "20/m/ip,5/h/key",
        "confirm_email": "1/3m/key",
    }
    assert proxies == 0

    result = read_account_limits(
        tmp_path,
        SIGNUP_RATE_LIMIT="3/10m/ip, 10/d/ip",
        LOGIN_RATE_LIMIT="60/m/ip",
        LOGIN_FAILED_RATE_LIMIT="20/m/ip,10/5m/key",
        PASSWORD_RESET_RATE_LIMIT="5/m/ip,2/h/key",
        EMAIL_CONFIRMATION_RATE_LIMIT="1/10m/key",
        TRUSTED_PROXY_COUNT="1",
    )
    assert result.returncode == 0, result.stderr
    limits, proxies = json.loads(result.stdout)
    assert limits == {
        "signup": "3/10m/ip,10/d/ip",
        "login": "60/m/ip",
        "login_failed": "20/m/ip,10/5m/key",
        "allauth_login_failed": "10/5m/key",
        "reset_password": "5/m/ip,2/h/key",
        "confirm_email": "1/10m/key",
    }
    assert proxies == 1

    result = read_account_limits(tmp_path, SIGNUP_RATE_LIMIT="20 per hour")
    assert result.returncode != 0
    assert "SIGNUP_RATE_LIMIT='20perhour' is not a rate limit" in result.stderr
