import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def settings_data(**changes):
    data = {
        "time_zone": "UTC",
        "theme": "system",
        "email_your_turn": "on",
        "email_reminder": "on",
        "email_timeout": "on",
        "email_invitation": "on",
        "email_game_started": "on",
        "email_game_over": "on",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def test_the_settings_page_needs_a_log_in(client):
    response = client.get(reverse("accounts:settings"))

    assert response.status_code == 302
    assert reverse("account_login") in response.url


def test_a_player_saves_time_zone_colour_blind_shapes_and_email_preferences(client, player):
    client.force_login(player)

    response = client.post(
        reverse("accounts:settings"),
        settings_data(
            time_zone="Europe/Madrid",
            colour_blind="on",
            email_your_turn=None,
            email_daily_digest="on",
        ),
    )

    assert response.status_code == 302
    player.refresh_from_db()
    assert player.time_zone == "Europe/Madrid"
    assert player.colour_blind is True
    assert player.email_your_turn is False
    assert player.email_daily_digest is True
    assert player.email_reminder is True
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "Your settings are saved." in page
    assert 'class="colour-blind"' in page


def test_an_unknown_time_zone_is_refused_and_nothing_changes(client, player):
    client.force_login(player)

    response = client.post(reverse("accounts:settings"), settings_data(time_zone="Mars/Olympus"))

    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    player.refresh_from_db()
    assert player.time_zone == "UTC"


def test_times_are_shown_in_the_players_time_zone(player, rf):
    from django.utils import timezone

    from accounts.middleware import UserTimezoneMiddleware

    player.time_zone = "Asia/Tokyo"
    request = rf.get("/")
    request.user = player
    seen = {}

    def view(request):
        seen["zone"] = timezone.get_current_timezone_name()
        return None

    UserTimezoneMiddleware(view)(request)

    assert seen["zone"] == "Asia/Tokyo"


def test_a_profile_page_shows_the_player_found_by_any_case_of_the_name(client, player):
    response = client.get(reverse("players:profile", args=["ADA"]))

    assert response.status_code == 200
    assert "Member since" in response.content.decode()
    assert client.get(reverse("players:profile", args=["nobody"])).status_code == 404


def test_the_time_zones_offered_are_real_places_not_the_machine_s_nor_aliases(client, player):
    client.force_login(player)
    page = client.get(reverse("accounts:settings")).content.decode()
    offered = re.findall(r'<option value="([^"]+)"[^>]*>', page[page.index('name="time_zone"') :])
    offered = offered[: offered.index("Pacific/Wallis") + 1]
    assert "Europe/Madrid" in offered and "America/Argentina/Buenos_Aires" in offered
    assert offered[0] == "UTC"
    for name in ("Factory", "localtime", "US/Pacific", "GB", "EST5EDT", "Etc/GMT+5", "posixrules"):
        assert name not in offered, name
    refused = client.post(reverse("accounts:settings"), settings_data(time_zone="Factory"))
    assert refused.status_code == 200  # the form again, with the error
    player.refresh_from_db()
    assert player.time_zone == "UTC"


def test_a_zone_saved_before_stays_offered_to_its_player(client, player):
    player.time_zone = "US/Pacific"
    player.save(update_fields=["time_zone"])
    client.force_login(player)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert '<option value="US/Pacific" selected>' in page
