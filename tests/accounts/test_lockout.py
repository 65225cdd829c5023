"""Failed log-ins: a lock per account and a limit per address (accounts/lockout.py).

The rules (LOGIN_FAILED_RATE_LIMIT, by default `10/m/ip,5/5m/key`):
- 5 failed log-ins to one account within 5 minutes lock it (from every address, whatever was
  typed: its username in any case or its email address) until the oldest of them is 5 minutes
  old; each attempt meanwhile is answered 429 with how long, and does not count.
- 10 failed log-ins from one address within a minute make that address wait (429) until the
  oldest is a minute old. That slows an address; it locks no account.
- A browser that has logged in to an account before carries a signed cookie for it: its
  attempts at that account are counted on their own, so neither a neighbour's failures at the
  same address nor a stranger's at the account ever keep the owner out.
- The right password after the wait logs in; a password reset lifts the lock.
"""

import re
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from accounts.lockout import DEVICE_COOKIE
from accounts.models import User

from .conftest import PASSWORD

# Committed for real: the account emails leave through the outbox after the commit.
pytestmark = pytest.mark.django_db(transaction=True)

HOME = "203.0.113.7"  # where the attacker is
ELSEWHERE = "198.51.100.20"


@pytest.fixture
def clock():
    with time_machine.travel(datetime(2030, 3, 4, 12, 0, tzinfo=UTC), tick=False) as traveller:
        yield traveller


@pytest.fixture
def bob(make_player):
    return make_player("bob")


def browser(address=HOME) -> Client:
    return Client(REMOTE_ADDR=address)


def log_in(client, login, password):
    return client.post(reverse("account_login"), {"login": login, "password": password})


def logged_in(client) -> bool:
    return client.get(reverse("accounts:settings")).status_code == 200


def refusal(response) -> str:
    """The 429 page's message."""
    assert response.status_code == 429, (response.status_code, response.content[:300])
    assert response.templates[0].name == "429.html"
    return re.search(r'<p class="error" role="alert">(.*?)</p>', response.content.decode(), re.S)[
        1
    ].strip()


def test_the_production_numbers():
    from django.conf import settings

    assert settings.LOGIN_FAILED_RATE_LIMIT == "10/m/ip,5/5m/key"


def test_five_failures_lock_the_account_with_429_saying_how_long(clock, player):
    attacker = browser()
    for _ in range(5):
        clock.shift(10)
        response = log_in(attacker, "ada", "wrong")
        assert response.status_code == 200
        assert "not correct" in response.content.decode()

    clock.shift(10)
    locked = log_in(attacker, "ada", PASSWORD)  # even the right password

    # The first of the five was 50 seconds ago: the lock lifts when it is 5 minutes old.
    assert refusal(locked) == (
        "Too many failed log-ins to this account. Try again in 5 minutes, or reset your password."
    )
    assert locked["Retry-After"] == "250"
    assert not logged_in(attacker)


def test_the_lock_holds_from_every_address_and_for_the_email_address_too(clock, player):
    for login in ("ada", "ADA", "ada@example.com", "Ada@Example.com", "ada"):
        assert log_in(browser(), login, "wrong").status_code == 200

    assert log_in(browser(ELSEWHERE), "ada@example.com", PASSWORD).status_code == 429
    assert log_in(browser(ELSEWHERE), "ada", PASSWORD).status_code == 429


def test_the_right_password_works_once_the_lock_has_expired(clock, player):
    for _ in range(5):
        log_in(browser(), "ada", "wrong")
    assert log_in(browser(), "ada", PASSWORD).status_code == 429

    clock.shift(5 * 60 + 1)
    owner = browser(ELSEWHERE)

    assert log_in(owner, "ada", PASSWORD).status_code == 302
    assert logged_in(owner)


def test_attempts_while_locked_do_not_make_the_lock_longer(clock, player):
    for _ in range(5):
        log_in(browser(), "ada", "wrong")
    for _ in range(20):
        clock.shift(10)
        assert log_in(browser(), "ada", "wrong").status_code == 429

    clock.shift(5 * 60 - 200 + 1)  # five minutes after the fifth failure

    assert log_in(browser(ELSEWHERE), "ada", PASSWORD).status_code == 302


def test_an_unknown_name_locks_alike(clock, player):
    """The answers do not tell whether an account exists."""
    for _ in range(5):
        assert log_in(browser(), "nobody", "wrong").status_code == 200

    assert refusal(log_in(browser(), "nobody", "wrong")).startswith(
        "Too many failed log-ins to this account."
    )


def test_ten_failures_from_an_address_slow_that_address_for_at_most_a_minute(clock, player, bob):
    attacker = browser()
    for n in range(10):  # ten accounts, two tries each: no account is locked
        clock.shift(1)
        assert log_in(attacker, f"someone{n // 2}", "wrong").status_code == 200

    clock.shift(1)
    slowed = log_in(browser(), "bob", PASSWORD)

    assert refusal(slowed) == "Too many failed log-ins from your address. Try again in 50 seconds."
    assert slowed["Retry-After"] == "50"
    # From another address, nothing is locked: the accounts are not.
    assert log_in(browser(ELSEWHERE), "bob", PASSWORD).status_code == 302
    clock.shift(50)
    assert log_in(browser(), "bob", PASSWORD).status_code == 302


def test_a_failed_log_in_from_a_shared_address_never_keeps_a_player_out_of_their_account(
    clock, player, bob
):
    """Bob has logged in from this browser before; ten failed log-ins from his address (another
    player at the same café or office, or an attacker behind the same NAT) do not stop him."""
    bobs_browser = browser()
    assert log_in(bobs_browser, "bob", PASSWORD).status_code == 302
    assert DEVICE_COOKIE in bobs_browser.cookies
    bobs_browser.post(reverse("account_logout"))

    neighbour = browser()
    for _ in range(10):
        log_in(neighbour, "ada", "wrong")
    assert log_in(neighbour, "ada", PASSWORD).status_code == 429

    assert log_in(bobs_browser, "bob", PASSWORD).status_code == 302
    assert logged_in(bobs_browser)


def test_an_attack_on_an_account_does_not_lock_its_owner_out_of_their_own_browser(clock, player):
    owners_browser = browser(ELSEWHERE)
    assert log_in(owners_browser, "ada", PASSWORD).status_code == 302
    owners_browser.post(reverse("account_logout"))
    for _ in range(30):
        clock.shift(5)
        log_in(browser(), "ada", "guess")
    assert log_in(browser(), "ada", PASSWORD).status_code == 429  # locked for everyone else

    assert log_in(owners_browser, "ada", PASSWORD).status_code == 302


def test_a_remembered_browser_is_limited_too_and_only_for_its_own_account(clock, player, bob):
    ada = browser()
    assert log_in(ada, "ada", PASSWORD).status_code == 302
    ada.post(reverse("account_logout"))

    for _ in range(5):
        assert log_in(ada, "ada", "wrong").status_code == 200
    assert refusal(log_in(ada, "ada", PASSWORD)).startswith(
        "Too many failed log-ins from this browser."
    )
    # Its failures were its own: the account is not locked for Ada's other devices.
    assert log_in(browser(ELSEWHERE), "ada", PASSWORD).status_code == 302
    # And Ada's cookie gives no way round the lock of another account.
    for _ in range(5):
        log_in(browser(ELSEWHERE), "bob", "wrong")
    assert log_in(ada, "bob", PASSWORD).status_code == 429


def test_a_forged_or_copied_device_cookie_is_worth_nothing(clock, player, bob):
    bobs_browser = browser()
    assert log_in(bobs_browser, "bob", PASSWORD).status_code == 302
    bobs_cookie = bobs_browser.cookies[DEVICE_COOKIE].value
    for _ in range(5):
        log_in(browser(ELSEWHERE), "ada", "wrong")

    forger = browser()
    for value in (bobs_cookie, bobs_cookie[:-2] + "xx", "1:token"):
        forger.cookies[DEVICE_COOKIE] = value
        assert log_in(forger, "ada", PASSWORD).status_code == 429


def test_a_password_reset_lifts_the_lock(clock, player, mailoutbox):
    for _ in range(5):
        log_in(browser(), "ada", "wrong")
    owner = browser(ELSEWHERE)
    assert log_in(owner, "ada", PASSWORD).status_code == 429

    owner.post(reverse("account_reset_password"), {"email": "ada@example.com"})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", mailoutbox[0].body)[1]
    form_url = owner.get(link, follow=True).redirect_chain[-1][0]
    new = "a-new-Passphrase-43"
    assert owner.post(form_url, {"password1": new, "password2": new}).status_code == 302

    assert log_in(owner, "ada", new).status_code == 302


def test_the_login_page_links_the_reset_from_the_lock_page(clock, player):
    for _ in range(5):
        log_in(browser(), "ada", "wrong")

    page = log_in(browser(), "ada", PASSWORD).content.decode()

    assert f'href="{reverse("account_reset_password")}"' in page


def test_a_staff_account_is_locked_the_same_way(clock, make_player):
    staff = make_player("root")
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True)
    for _ in range(5):
        log_in(browser(), "root", "wrong")

    assert log_in(browser(), "root", PASSWORD).status_code == 429
