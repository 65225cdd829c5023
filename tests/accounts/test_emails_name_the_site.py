"""allauth's emails (sign-up confirmation, password reset, "you already have an account") name
the site and link to it at SITE_URL, whatever the Site row says (the migration that wrote it ran
once, with the SITE_URL of the first `migrate`) and whatever address the request came to.
(tests/site/test_up_command.py checks the same on the console of a real `manage.py up`.)"""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.sites.models import Site
from django.urls import reverse

from accounts.models import User

# Committed for real: the account emails leave through the outbox after the commit.
pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-Passphrase-42"


@pytest.fixture
def site_elsewhere(settings):
    """The Site row as the first migrate left it, on another port than the site runs on now."""
    Site.objects.filter(pk=settings.SITE_ID).update(domain="localhost:8000")
    Site.objects.clear_cache()
    settings.SITE_URL = "http://localhost:18765"
    yield
    Site.objects.clear_cache()


def sign_up(client, username="ada", email="ada@example.com"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def links(message) -> list[str]:
    return re.findall(r"https?://\S+", message.body)


def test_the_confirmation_email_names_and_links_to_site_url(client, mailoutbox, site_elsewhere):
    sign_up(client)

    (message,) = mailoutbox
    assert "register an account on localhost:18765." in message.body
    assert message.body.startswith("Hello from Microchip Online!")
    assert message.body.rstrip().endswith("Thank you for using Microchip Online!\nlocalhost:18765")
    assert message.subject.startswith("[Microchip Online] ")
    # The request came to "testserver"; the link goes to the public address all the same.
    (link,) = links(message)
    assert link.startswith("http://localhost:18765/accounts/confirm-email/"), link
    assert "8000" not in message.body and "testserver" not in message.body
    # And it confirms the address.
    client.get(link.removeprefix("http://localhost:18765"))
    assert EmailAddress.objects.get(email="ada@example.com").verified


def test_the_scheme_follows_site_url_too(client, mailoutbox, site_elsewhere, settings):
    settings.SITE_URL = "https://microchip.example.org"

    sign_up(client)

    body = mailoutbox[0].body
    assert "register an account on microchip.example.org." in body
    assert links(mailoutbox[0])[0].startswith("https://microchip.example.org/accounts/confirm-")


def test_the_password_reset_email_links_to_site_url(client, mailoutbox, site_elsewhere):
    user = User.objects.create_user("ada", "ada@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)

    client.post(reverse("account_reset_password"), {"email": "ada@example.com"})

    (message,) = mailoutbox
    (link,) = links(message)
    assert link.startswith("http://localhost:18765/accounts/password/reset/key/"), link
    assert "localhost:8000" not in message.body
    page = client.get(link.removeprefix("http://localhost:18765"), follow=True)
    assert page.status_code == 200 and "password" in page.content.decode().lower()


def test_the_account_already_exists_email_links_to_site_url(client, mailoutbox, site_elsewhere):
    user = User.objects.create_user("ada", "ada@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)

    sign_up(client, username="someone", email="ada@example.com")  # the same address again

    (message,) = mailoutbox
    found = links(message)
    assert found and all(link.startswith("http://localhost:18765/accounts/") for link in found)
    assert "localhost:8000" not in message.body


def test_an_email_sent_without_a_request_links_to_site_url(mailoutbox, site_elsewhere):
    # e.g. from the admin's shell: allauth then builds the link on the Site row's domain.
    user = User.objects.create_user("ada", "ada@example.com", PASSWORD)
    address = EmailAddress.objects.create(user=user, email=user.email, primary=True)

    address.send_confirmation(None)

    (message,) = mailoutbox
    (link,) = links(message)
    assert link.startswith("http://localhost:18765/accounts/confirm-email/"), link
    assert "localhost:8000" not in message.body
