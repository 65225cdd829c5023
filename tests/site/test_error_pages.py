"""A failed request's answer (microchip_site/errors.py): 503 with Retry-After when the database is
out of reach, 500 otherwise; a styled page, or a line for a page's htmx request."""

import pytest
from django.db import OperationalError
from django.test import RequestFactory

from microchip_site.errors import server_error


def answer(error, **headers):
    request = RequestFactory().get("/leaderboard/", headers=headers)
    try:
        raise error
    except Exception:
        return server_error(request)  # Django calls it inside the exception's handling


@pytest.mark.parametrize(
    "error",
    [
        OperationalError("terminating connection due to administrator command"),
        OperationalError("couldn't get a connection after 3.00 sec"),
    ],
)
def test_a_database_out_of_reach_is_a_503_to_retry(error):
    response = answer(error)
    assert response.status_code == 503 and response["Retry-After"] == "10"
    page = response.content.decode()
    assert "<h1>The site is having trouble</h1>" in page and "Try again" in page
    line = answer(error, HX_Request="true")
    assert line.status_code == 503 and line["Content-Type"].startswith("text/plain")
    assert "cannot reach its database" in line.content.decode()


def test_any_other_failure_is_a_500_without_retry_after():
    response = answer(ValueError("a bug"))
    assert response.status_code == 500 and "Retry-After" not in response
    assert "<h1>Something went wrong</h1>" in response.content.decode()
    assert "a bug" not in response.content.decode()  # nothing of the error is shown


@pytest.mark.django_db
def test_a_mistyped_address_is_the_site_s_own_404_page_in_the_reader_s_language(client, settings):
    settings.DEBUG = False  # as players see the site (`manage.py up` without --debug)
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>Page not found</h1>" in page and 'class="site-header"' in page
    assert "URLconf" not in page and "admin/" not in page  # nothing of Django's debug page
    spanish = client.get("/juegos/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert '<html lang="es"' in spanish and "Page not found" not in spanish


def test_favicon_ico_is_the_site_s_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith(".svg")
