"""The theme setting (accounts.User.theme): saved, shown, and served in every page's <html>."""

import re

import pytest
from django.urls import reverse

from .test_settings_page import settings_data

pytestmark = pytest.mark.django_db


def html_tag(page):
    return re.search(r"<html[^>]*>", page).group(0)


def dark_stylesheet(page):
    """The link of the dark palette, or None."""
    found = re.search(r'<link rel="stylesheet" href="[^"]*microchip/dark\.css"[^>]*>', page)
    return found and found.group(0)


def test_a_player_chooses_the_dark_theme_and_the_settings_page_shows_it(client, player):
    client.force_login(player)
    assert player.theme == "system"

    response = client.post(reverse("accounts:settings"), settings_data(theme="dark"))

    assert response.status_code == 302
    player.refresh_from_db()
    assert player.theme == "dark"
    page = client.get(reverse("accounts:settings")).content.decode()
    checked = re.search(r'<input type="radio" name="theme" value="dark"[^>]*>', page).group(0)
    assert "checked" in checked
    assert "follow the system" in page


@pytest.mark.parametrize("theme", ["sepia", "", "DARK"])
def test_a_theme_that_is_not_one_of_the_choices_is_refused(client, player, theme):
    client.force_login(player)

    response = client.post(reverse("accounts:settings"), settings_data(theme=theme))

    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    player.refresh_from_db()
    assert player.theme == "system"


def test_no_theme_at_all_is_refused(client, player):
    client.force_login(player)

    response = client.post(
        reverse("accounts:settings"), settings_data(theme=None, colour_blind="on")
    )

    assert response.status_code == 200
    player.refresh_from_db()
    assert (player.theme, player.colour_blind) == ("system", False)


def test_every_page_is_served_in_the_players_theme(client, player):
    """The choice is in the page as served (no script, no flash of the other theme): the dark
    palette always for "dark", for a dark device only when following the system, never for
    "light"; the browser's own colours and its bar (theme-color) the same way."""
    client.force_login(player)
    for theme, html, media, scheme in [
        ("dark", 'data-theme="dark"', "", "dark"),
        ("light", 'data-theme="light"', None, "light"),
        ("system", 'data-theme="system"', "(prefers-color-scheme: dark)", "light dark"),
    ]:
        player.theme = theme
        player.save(update_fields=["theme"])
        for url in (reverse("dashboard"), reverse("accounts:settings")):
            page = client.get(url).content.decode()
            assert html in html_tag(page)
            link = dark_stylesheet(page)
            if media is None:
                assert link is None
            else:
                assert (f'media="{media}"' in link) if media else ("media=" not in link)
            assert f'<meta name="color-scheme" content="{scheme}">' in page
            bars = re.findall(r'<meta name="theme-color"[^>]*>', page)
            assert len(bars) == (2 if theme == "system" else 1)


def test_a_visitor_follows_the_system(client):
    page = client.get(reverse("account_login")).content.decode()

    assert 'data-theme="system"' in html_tag(page)
    assert 'media="(prefers-color-scheme: dark)"' in dark_stylesheet(page)
