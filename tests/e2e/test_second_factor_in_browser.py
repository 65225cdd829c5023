"""A staff member sets up an authenticator app from Settings in the browser, keeps the recovery
codes, and is let into the admin once this session has used the second factor. The pages
(allauth's, in the site's layout) pass axe-core and break no Content Security Policy."""

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from accounts.models import User
from tests.accounts.second_factor import totp_code

from .helpers import serious_violations

pytestmark = pytest.mark.servers

PASSWORD = "a-long-Passphrase-42"


def no_serious_violations(page):
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()


def test_staff_set_up_an_app_and_then_enter_the_admin(open_page, make_player):
    staff = make_player("root")
    # Hashed as the server hashes (the tests' own processes use a fast hasher it does not know).
    password = PBKDF2PasswordHasher().encode(PASSWORD, PBKDF2PasswordHasher().salt())
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True, password=password)
    staff.refresh_from_db()
    page = open_page(staff)

    page.goto("/admin/")
    assert page.get_by_role("heading", name="A second factor is needed").is_visible()
    no_serious_violations(page)
    page.get_by_role("link", name="Set up an authenticator app").click()
    page.fill("input[name=password]", PASSWORD)  # allauth asks again before such a change
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/2fa/totp/activate/")
    no_serious_violations(page)
    assert page.locator("main img[src^='data:image/svg+xml']").is_visible()  # the QR code
    secret = page.input_value("#authenticator_secret")
    page.fill("input[name=code]", totp_code(secret))
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/2fa/recovery-codes/")  # allauth shows the new codes at once
    no_serious_violations(page)
    codes = page.input_value("#recovery_codes").split()
    assert len(codes) == 10

    page.goto("/settings/")
    section = page.locator("section.second-factor")
    assert "On: each log-in asks for a code" in section.inner_text()
    no_serious_violations(page)

    page.goto("/admin/")
    page.get_by_role("link", name="Confirm with your authenticator app").click()
    no_serious_violations(page)
    page.fill("input[name=code]", codes[0])  # the app's code of this half-minute is spent
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/admin/")
    assert page.get_by_role("link", name="Users").is_visible()
    assert page.errors == []
