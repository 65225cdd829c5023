"""A second factor (allauth.mfa): an authenticator app (TOTP) and recovery codes, set up and
removed from Settings, asked at each log-in after the password."""

import base64
from datetime import UTC, datetime

import pytest
import time_machine
from allauth.mfa.models import Authenticator
from django.test import Client
from django.urls import reverse

from .conftest import PASSWORD
from .second_factor import confirm_password, recovery_codes, set_up_authenticator, totp_code

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def clock():
    with time_machine.travel(datetime(2030, 3, 4, 12, 0, tzinfo=UTC), tick=False) as traveller:
        yield traveller


def log_in(client, login="ada", password=PASSWORD):
    return client.post(reverse("account_login"), {"login": login, "password": password})


def give_code(client, code):
    return client.post(reverse("mfa_authenticate"), {"code": code})


def logged_in(client) -> bool:
    return client.get(reverse("accounts:settings")).status_code == 200


def test_the_helper_computes_the_codes_of_rfc_6238():
    """RFC 6238, appendix B: the SHA-1 seed "12345678901234567890" at 59 s and 1111111109 s."""
    secret = base64.b32encode(b"12345678901234567890").decode()

    assert totp_code(secret, at=59, digits=8) == "94287082"
    assert totp_code(secret, at=1111111109, digits=8) == "07081804"


@pytest.fixture
def ada_with_an_app(clock, player):
    """Ada, logged in (by password), who has set up an authenticator app; and its secret."""
    client = Client()
    assert log_in(client).status_code == 302
    secret = set_up_authenticator(client, PASSWORD)
    client.post(reverse("account_logout"))
    clock.shift(30)  # the next code: a code is taken once
    return client, secret


def test_a_player_sets_up_an_app_from_settings_and_each_log_in_asks_for_its_code(clock, player):
    client = Client()
    log_in(client)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "Two-factor authentication" in page
    assert f'href="{reverse("mfa_activate_totp")}"' in page

    secret = set_up_authenticator(client, PASSWORD)

    kinds = set(Authenticator.objects.filter(user=player).values_list("type", flat=True))
    assert kinds == {Authenticator.Type.TOTP, Authenticator.Type.RECOVERY_CODES}
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "On: each log-in asks for a code" in page
    assert f'href="{reverse("mfa_deactivate_totp")}"' in page
    client.post(reverse("account_logout"))
    clock.shift(30)

    asked = log_in(client)
    assert asked.status_code == 302 and asked["Location"] == reverse("mfa_authenticate")
    assert not logged_in(client)  # the password alone is not enough
    wrong = give_code(client, "000000" if totp_code(secret) != "000000" else "111111")
    assert wrong.status_code == 200 and "Incorrect code" in wrong.content.decode()
    assert not logged_in(client)

    assert give_code(client, totp_code(secret)).status_code == 302
    assert logged_in(client)


def test_a_code_works_once(ada_with_an_app):
    client, secret = ada_with_an_app
    log_in(client)
    assert give_code(client, totp_code(secret)).status_code == 302
    client.post(reverse("account_logout"))

    log_in(client)
    assert give_code(client, totp_code(secret)).status_code == 200  # the same 30 s, replayed
    assert not logged_in(client)


def test_a_recovery_code_stands_in_for_the_app_once(ada_with_an_app):
    client, secret = ada_with_an_app
    log_in(client)
    give_code(client, totp_code(secret))
    codes = recovery_codes(client, PASSWORD)
    assert len(codes) == 10
    client.post(reverse("account_logout"))

    log_in(client)
    assert give_code(client, codes[0]).status_code == 302
    assert logged_in(client)
    client.post(reverse("account_logout"))

    log_in(client)
    assert give_code(client, codes[0]).status_code == 200
    assert not logged_in(client)
    assert give_code(client, codes[1]).status_code == 302
    assert logged_in(client)
    assert len(recovery_codes(client, PASSWORD)) == 8


def test_new_recovery_codes_replace_the_old_ones(ada_with_an_app):
    client, secret = ada_with_an_app
    log_in(client)
    give_code(client, totp_code(secret))
    old = recovery_codes(client, PASSWORD)
    confirm_password(client, PASSWORD)

    assert client.post(reverse("mfa_generate_recovery_codes")).status_code == 302

    new = recovery_codes(client, PASSWORD)
    assert len(new) == 10 and not set(new) & set(old)
    client.post(reverse("account_logout"))
    log_in(client)
    assert give_code(client, old[0]).status_code == 200
    assert give_code(client, new[0]).status_code == 302


def test_the_app_can_be_removed_and_the_password_is_enough_again(ada_with_an_app, player):
    client, secret = ada_with_an_app
    log_in(client)
    give_code(client, totp_code(secret))
    confirm_password(client, PASSWORD)

    assert client.post(reverse("mfa_deactivate_totp")).status_code == 302

    assert not Authenticator.objects.filter(user=player).exists()  # the recovery codes too
    client.post(reverse("account_logout"))
    answer = log_in(client)
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert logged_in(client)


def test_wrong_codes_lock_the_account_as_wrong_passwords_do(clock, ada_with_an_app):
    _, secret = ada_with_an_app
    attacker = Client(REMOTE_ADDR="203.0.113.7")  # who has the password, not the app
    log_in(attacker)
    guesses = [f"{n:06d}" for n in range(6) if f"{n:06d}" != totp_code(secret)][:5]
    for guess in guesses:
        assert give_code(attacker, guess).status_code == 200

    locked = give_code(attacker, totp_code(secret))

    assert locked.status_code == 429
    assert "Too many failed log-ins to this account." in locked.content.decode()
    # And for a password from anywhere too, until the five are 5 minutes old.
    assert log_in(Client(REMOTE_ADDR="198.51.100.20")).status_code == 429
    clock.shift(5 * 60)
    owner = Client(REMOTE_ADDR="198.51.100.20")
    assert log_in(owner).status_code == 302
    assert give_code(owner, totp_code(secret)).status_code == 302
