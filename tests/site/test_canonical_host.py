"""A site on the loopback has one address (microchip_site/canonical_host.py): a page asked for at
the other loopback name is sent to the site's own, so that the session of a sign-up and the link
in its email are for the same host."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("asked", ["127.0.0.1:8000", "[::1]:8000"])
def test_another_loopback_name_is_sent_to_the_site_s_address(client, settings, asked):
    settings.SITE_URL = "http://localhost:8000"
    response = client.get("/accounts/confirm-email/abc/?next=/x/", HTTP_HOST=asked)
    assert response.status_code == 301
    assert response["Location"] == "http://localhost:8000/accounts/confirm-email/abc/?next=/x/"


def test_the_site_s_own_name_another_port_and_a_post_are_left_alone(client, settings):
    settings.SITE_URL = "http://localhost:8000"
    assert client.get("/leaderboard/", HTTP_HOST="localhost:8000").status_code == 200
    assert client.get("/leaderboard/", HTTP_HOST="127.0.0.1:9000").status_code == 200
    response = client.post("/language/", {"language": "es"}, HTTP_HOST="127.0.0.1:8000")
    assert response.status_code != 301


def test_a_deployment_s_host_names_are_its_own(client, settings):
    settings.SITE_URL = "https://microchip.example"
    settings.ALLOWED_HOSTS = ["microchip.example", "127.0.0.1"]
    assert client.get("/leaderboard/", HTTP_HOST="127.0.0.1").status_code == 200
