"""The admin is entered through the site's own log-in (its lock per account, its limit per
address, the second factor), and with ADMIN_REQUIRE_MFA only by staff whose session used their
second factor (accounts/admin_site.py)."""

import json
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.conftest import settings_in_a_new_process

from .conftest import PASSWORD
from .second_factor import set_up_authenticator, totp_code

pytestmark = pytest.mark.django_db(transaction=True)

ATTACKER = "203.0.113.7"


@pytest.fixture
def clock():
    with time_machine.travel(datetime(2030, 3, 4, 12, 0, tzinfo=UTC), tick=False) as traveller:
        yield traveller


@pytest.fixture
def staff(make_player):
    user = make_player("root")
    User.objects.filter(pk=user.pk).update(is_staff=True, is_superuser=True)
    user.refresh_from_db()
    return user


def site_log_in(client, login="root", password=PASSWORD, next_url="/admin/"):
    return client.post(
        f"{reverse('account_login')}?next={next_url}", {"login": login, "password": password}
    )


def admin_log_in(client, password):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "root", "password": password, "next": "/admin/"},
    )


def in_the_admin(client) -> bool:
    return client.get("/admin/accounts/user/").status_code == 200


def test_the_admins_own_form_checks_no_password(clock, staff):
    """Issue 20: 60 wrong passwords to /admin/login/ in 72 s were all answered, then the right
    one let the attacker in. Now every post is sent to the site's log-in, unread."""
    attacker = Client(REMOTE_ADDR=ATTACKER)
    for _ in range(60):
        clock.shift(1.2)
        answer = admin_log_in(attacker, "wrong")
        assert answer.status_code == 302
        assert answer["Location"] == f"{reverse('account_login')}?next=%2Fadmin%2F"

    admin_log_in(attacker, PASSWORD)

    assert not in_the_admin(attacker)


def test_of_60_wrong_passwords_on_the_way_to_the_admin_5_are_checked(clock, staff):
    """The same attack through the site's log-in page: 5 tries, then 429 for the account."""
    attacker = Client(REMOTE_ADDR=ATTACKER)
    answers = []
    for _ in range(60):
        clock.shift(1.2)
        answers.append(site_log_in(attacker, password="wrong").status_code)

    assert answers == [200] * 5 + [429] * 55
    assert site_log_in(attacker).status_code == 429
    assert not in_the_admin(attacker)


def test_a_visitor_is_sent_to_the_sites_log_in_and_back(staff):
    client = Client()
    first = client.get("/admin/")
    assert first.status_code == 302 and first["Location"].startswith("/admin/login/")
    second = client.get(first["Location"])
    assert second.status_code == 302
    assert second["Location"] == f"{reverse('account_login')}?next=%2Fadmin%2F"


def test_a_player_who_is_not_staff_is_refused(make_player):
    client = Client()
    client.force_login(make_player("bob"))

    assert client.get("/admin/login/?next=/admin/").status_code == 403
    assert not in_the_admin(client)


def test_staff_without_a_second_factor_are_asked_to_set_one_up(clock, staff):
    client = Client()
    answer = site_log_in(client)
    assert answer.status_code == 302 and answer["Location"] == "/admin/"

    refused = client.get("/admin/", follow=True)

    assert refused.status_code == 403
    page = refused.content.decode()
    assert "A second factor is needed" in page
    assert f'href="{reverse("mfa_activate_totp")}"' in page
    assert "Select user to change" not in page
    assert client.get("/admin/accounts/user/", follow=True).status_code == 403


def test_without_admin_require_mfa_the_password_is_enough(clock, staff, settings):
    settings.ADMIN_REQUIRE_MFA = False
    client = Client()
    site_log_in(client)

    assert in_the_admin(client)


def test_staff_with_an_app_enter_the_admin_after_its_code(clock, staff):
    client = Client()
    site_log_in(client)
    secret = set_up_authenticator(client, PASSWORD)
    # Logged in before the app was set up: this session has used no second factor.
    refused = client.get("/admin/", follow=True)
    assert refused.status_code == 403
    confirm = f"{reverse('mfa_reauthenticate')}?next=/admin/"
    assert f'href="{confirm}"' in refused.content.decode()
    clock.shift(30)
    confirmed = client.post(confirm, {"code": totp_code(secret)})
    assert confirmed.status_code == 302 and confirmed["Location"] == "/admin/"
    assert in_the_admin(client)

    client.post(reverse("account_logout"))
    clock.shift(30)
    asked = site_log_in(client)
    assert asked["Location"].startswith(reverse("mfa_authenticate"))
    assert not in_the_admin(client)
    entered = client.post(reverse("mfa_authenticate"), {"code": totp_code(secret)})

    assert entered.status_code == 302 and entered["Location"] == "/admin/"
    assert in_the_admin(client)


PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps(settings.ADMIN_REQUIRE_MFA))
"""


def test_admin_require_mfa_is_on_unless_debug_or_said_otherwise(tmp_path):
    for environment, expected in [
        ({}, True),
        ({"DEBUG": "true"}, False),
        ({"ADMIN_REQUIRE_MFA": "false"}, False),
        ({"DEBUG": "true", "ADMIN_REQUIRE_MFA": "true"}, True),
    ]:
        result = settings_in_a_new_process(PROBE, tmp_path, **environment)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) is expected, environment
