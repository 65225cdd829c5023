import re

import pytest

from accounts.models import User

pytestmark = pytest.mark.servers


def test_a_new_player_registers_confirms_the_email_and_changes_a_setting(open_page, server):
    page = open_page()
    page.goto("/")
    page.get_by_role("link", name="Sign up").first.click()
    page.fill("input[name=email]", "zoe@example.com")
    page.fill("input[name=username]", "Zoe")
    page.fill("input[name=password1]", "a-long-Passphrase-42")
    page.fill("input[name=password2]", "a-long-Passphrase-42")
    page.locator("main form button[type=submit]").click()  # not the footer's language form
    page.wait_for_url("**/accounts/confirm-email/")

    # The default set-up prints the email on the server's console.
    link = None
    for _ in range(50):
        found = re.findall(r"http://\S+/accounts/confirm-email/\S+/", server.log())
        if found:
            link = found[-1]
            break
        page.wait_for_timeout(100)
    assert link, "no confirmation email on the server's console"
    page.goto(link)
    page.wait_for_url("**/dashboard/")
    assert page.get_by_role("link", name="Zoe").is_visible()

    page.get_by_role("link", name="Settings").click()
    page.select_option("select[name=time_zone]", "Europe/Madrid")
    page.check("input[name=colour_blind]")
    page.get_by_role("button", name="Save settings").click()
    assert page.get_by_text("Your settings are saved.").is_visible()
    user = User.objects.get(username="Zoe")
    assert (user.time_zone, user.colour_blind) == ("Europe/Madrid", True)
    assert page.errors == []
