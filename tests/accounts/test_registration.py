import re

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse

from accounts.models import User

# Committed for real: the account emails leave through the outbox after the commit.
pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-Passphrase-42"


def sign_up(client, username="ada", email="ada@example.com"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def confirmation_link(message):
    return re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+/)", message.body).group(1)


def test_sign_up_sends_a_confirmation_email_and_the_link_confirms_and_logs_in(client, mailoutbox):
    response = sign_up(client)

    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    user = User.objects.get(username="ada")
    assert not EmailAddress.objects.get(user=user).verified
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["ada@example.com"]

    response = client.get(confirmation_link(mailoutbox[0]))

    assert response.status_code == 302
    assert EmailAddress.objects.get(user=user).verified
    assert client.get(reverse("accounts:settings")).status_code == 200


def test_log_in_is_refused_until_the_email_is_confirmed(client, mailoutbox):
    sign_up(client)
    client.logout()

    response = client.post(reverse("account_login"), {"login": "ada", "password": PASSWORD})

    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    assert client.get(reverse("accounts:settings")).status_code == 302


def test_usernames_are_unique_whatever_their_case(client, mailoutbox):
    sign_up(client, username="Ada", email="ada@example.com")
    client.logout()

    response = sign_up(client, username="aDA", email="other@example.com")

    assert response.status_code == 200
    assert "already" in response.content.decode()
    assert User.objects.filter(username__iexact="ada").count() == 1


def test_the_database_refuses_a_username_differing_only_by_case():
    from django.db import IntegrityError, transaction

    User.objects.create_user("grace", "grace@example.com", PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("GRACE", "grace2@example.com", PASSWORD)


def test_sign_up_form_is_protected_by_csrf(mailoutbox):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = sign_up(strict)

    assert response.status_code == 403
    assert not User.objects.filter(username="ada").exists()  # (the bots' accounts may exist)
