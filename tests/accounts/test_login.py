import re

import pytest
from django.urls import reverse

from .conftest import PASSWORD

# Committed for real: the account emails leave through the outbox after the commit.
pytestmark = pytest.mark.django_db(transaction=True)


def log_in(client, login, password):
    return client.post(reverse("account_login"), {"login": login, "password": password})


def test_log_in_with_username_or_email_and_log_out(client, player):
    assert log_in(client, "ada", PASSWORD).status_code == 302
    assert client.get(reverse("accounts:settings")).status_code == 200
    client.post(reverse("account_logout"))
    assert client.get(reverse("accounts:settings")).status_code == 302

    assert log_in(client, "ada@example.com", PASSWORD).status_code == 302


def test_a_wrong_password_is_refused_with_a_message(client, player):
    response = log_in(client, "ada", "wrong")

    assert response.status_code == 200
    assert "not correct" in response.content.decode()


def test_repeated_failed_log_ins_lock_the_account_for_a_while(client, player):
    """(tests/accounts/test_lockout.py has the whole of it.)"""
    for _ in range(5):
        log_in(client, "ada", "wrong")

    response = log_in(client, "ada", PASSWORD)

    assert response.status_code == 429
    assert "Too many failed log-ins to this account." in response.content.decode()
    assert client.get(reverse("accounts:settings")).status_code == 302


def test_password_reset_by_email(client, player, mailoutbox):
    client.post(reverse("account_reset_password"), {"email": "ada@example.com"})
    assert len(mailoutbox) == 1
    path = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/[^\s]+/)", mailoutbox[0].body)

    response = client.get(path.group(1), follow=True)
    form_url = response.redirect_chain[-1][0] if response.redirect_chain else path.group(1)
    response = client.post(
        form_url, {"password1": "a-new-Passphrase-43", "password2": "a-new-Passphrase-43"}
    )

    assert response.status_code == 302
    client.logout()
    assert log_in(client, "ada", PASSWORD).status_code == 200
    assert log_in(client, "ada", "a-new-Passphrase-43").status_code == 302


def test_password_change(client, player):
    client.force_login(player)

    response = client.post(
        reverse("account_change_password"),
        {
            "oldpassword": PASSWORD,
            "password1": "a-new-Passphrase-43",
            "password2": "a-new-Passphrase-43",
        },
    )

    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password("a-new-Passphrase-43")
