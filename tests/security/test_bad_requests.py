"""Requests no browser would make, refused with a clear 4xx, never a 500 or a page the proxy
cannot pass on (issue 34): a NUL byte in any query parameter, a `next` too long for a redirect,
and the API's refusals, which are always JSON (a body too big, a method the endpoint does not
take, a body that cannot be read, a path that names nothing, the database out of reach)."""

import json
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from tests.api.helpers import token_for

from .conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/games/new/?with=%00",
        "/games/report/?player=%00",
        "/games/report/?message=1&game=%00",
        "/games/?player_count=%00",
        "/leaderboard/?page=%00",
        "/games/1/?sel=%00",
        "/players/ada/games/?opponent=%00",
        "/?q=a%00b",
        "/?%00=1",
        "/api/v1/me/games?status=%00",
    ],
)
def test_a_nul_byte_in_any_query_parameter_is_a_400(players, path):
    answer = client_for(players[0]).get(path)
    assert answer.status_code == 400, path
    anonymous = Client().get(path)
    assert anonymous.status_code == 400, path


def test_a_nul_byte_in_the_api_is_refused_in_json(players):
    headers = {"Authorization": f"Bearer {token_for(players[0], 'read')}"}
    answer = Client().get("/api/v1/me/games?status=%00", headers=headers)
    assert answer.status_code == 400 and answer.json()["code"] == "bad_request"


def test_a_next_too_long_for_a_redirect_goes_home(players):
    browser = client_for(players[0])
    answer = browser.post("/language/", {"language": "fr", "next": "/" + "x" * 24_000})
    assert answer.status_code == 302
    assert answer["Location"] == "/"
    short = browser.post("/language/", {"language": "de", "next": "/leaderboard/"})
    assert short["Location"] == "/leaderboard/"


# --- the API: every refusal is JSON ---------------------------------------------------------------


@pytest.fixture
def api(players):
    secret = token_for(players[0], "play")
    return Client(headers={"Authorization": f"Bearer {secret}"})


def refusal(answer, status: int, code: str):
    assert answer.status_code == status, (answer.status_code, answer.content[:200])
    assert answer["Content-Type"].startswith("application/json")
    body = answer.json()
    assert body["code"] == code and body["message"], body
    return body


def test_a_body_over_the_limit_is_a_json_413(api, settings):
    big = json.dumps({"name": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)})
    refusal(api.post("/api/v1/games", big, content_type="application/json"), 413, "too_large")


def test_a_body_over_the_limit_is_a_json_413_when_debugging_too(api, settings):
    settings.DEBUG = True  # as under `manage.py up` on a developer's machine
    big = json.dumps({"name": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)})
    refusal(api.post("/api/v1/games", big, content_type="application/json"), 413, "too_large")


def test_a_method_the_endpoint_does_not_take_is_a_json_405(api):
    body = refusal(api.put("/api/v1/games/1/actions"), 405, "method_not_allowed")
    assert "POST" in body["message"]
    assert api.put("/api/v1/games/1/actions")["Allow"] == "POST"


def test_a_multipart_body_without_its_boundary_is_a_json_400(api):
    answer = api.post("/api/v1/games", b"--x\r\n", content_type="multipart/form-data")
    refusal(answer, 400, "bad_request")


def test_a_path_under_the_api_that_names_nothing_is_a_json_404(api):
    refusal(api.get("/api/v1/no-such-thing"), 404, "not_found")


def test_the_database_out_of_reach_is_a_json_503_to_retry(api):
    down = OperationalError("terminating connection due to administrator command")
    api.raise_request_exception = False  # as a server answers: the failure's own page
    with mock.patch("games.api.reading.archive.leaderboard", side_effect=down):
        answer = api.get("/api/v1/leaderboard")
    refusal(answer, 503, "unavailable")
    assert answer["Retry-After"] == "10"
