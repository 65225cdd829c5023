"""The API's schema and its server agree (issue 34): what the schema calls valid is never refused
as malformed (422), and what it calls invalid is; the refusals name the fields as the schema
does; the limits are the same on both sides; a long event log says there is more."""

import pytest
from django.test import Client as DjangoClient

from games import rules
from tests.games.playing import play_to_the_end

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(players):
    return Client(DjangoClient(), token_for(players[0], "play"))


def schema_of(client) -> dict:
    return client.client.get("/api/v1/openapi.json").json()


def body_schema(document: dict, path: str, method: str = "post") -> dict:
    content = document["paths"][f"/api/v1{path}"][method]["requestBody"]["content"]
    reference = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    return document["components"]["schemas"][reference]


def test_a_whole_number_written_with_a_decimal_point_is_an_integer(api):
    """JSON Schema's integer is any number without a fraction: 2.0 is one, as JSON clients write
    it; 2.5, "2" and true are not."""
    assert api.post("/seek", {"player_count": 2.0}).status_code == 200
    for wrong in (2.5, "2", True):
        answer = api.post("/seek", {"player_count": wrong})
        assert answer.status_code == 422, wrong
        assert answer.json()["message"].startswith("player_count: ")


def test_a_refusal_names_the_field_as_the_schema_does(api, start_game):
    game = start_game(2)
    move = api.post(f"/games/{game.pk}/actions", {"version": "x", "action": {}})
    new = api.post("/games", {"name": 5})
    assert move.status_code == new.status_code == 422
    assert move.json()["message"].startswith("version: ")
    assert new.json()["message"].startswith("name: ")


def test_what_the_schema_cannot_say_is_refused_by_the_tables_rules_not_as_malformed(api):
    """Too many computer players for the table: every field is valid, so the request is well
    formed; the table refuses it (400, with its code), as the schema's description says."""
    answer = api.post("/games", {"player_count": 2, "strong_bots": 3})
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "bots"
    document = schema_of(api)
    assert (
        "player_count"
        in body_schema(document, "/games")["properties"]["strong_bots"]["description"]
    )


def test_a_queue_holds_as_many_tiles_on_both_sides(api, start_game):
    document = schema_of(api)
    tiles = body_schema(document, "/games/{game_id}/queue")["properties"]["tiles"]
    assert tiles["maxItems"] == rules.ahead.MAX_QUEUED == 6
    assert tiles["items"]["minimum"] == 0 and tiles["items"]["maximum"] == 59
    game = start_game(2)
    answer = api.post(f"/games/{game.pk}/queue", {"version": None, "tiles": list(range(7))})
    assert answer.status_code == 422 and answer.json()["message"].startswith("tiles: ")


def test_an_unknown_action_is_told_with_the_actions_a_client_may_send(api, start_game):
    game = start_game(2)
    answer = api.post(f"/games/{game.pk}/actions", {"version": None, "action": {"type": "fly"}})
    assert answer.status_code == 400 and answer.json()["code"] == "bad_action"
    message = answer.json()["message"]
    assert "draft" in message and "finish" in message
    for internal in ("take_last", "conclude", "resign"):
        assert internal not in message
    for internal in ("take_last", "conclude"):
        sent = api.post(
            f"/games/{game.pk}/actions", {"version": None, "action": {"type": internal}}
        )
        assert sent.status_code == 400 and sent.json()["code"] == "bad_action"


def test_the_event_log_is_read_in_pages_that_say_when_there_is_more(api, start_game):
    game = start_game(2)
    play_to_the_end(game)
    game.refresh_from_db()
    document = schema_of(api)
    parameters = document["paths"]["/api/v1/games/{game_id}/events"]["get"]["parameters"]
    limit = next(parameter for parameter in parameters if parameter["name"] == "limit")
    assert limit["schema"]["maximum"] == 1000 and limit["schema"]["default"] == 500

    versions, since, pages = [], 0, 0
    while True:
        answer = api.get(f"/games/{game.pk}/events", since=since, limit=10)
        page = answer.json()
        versions += [event["version"] for event in page]
        pages += 1
        if "Link" not in answer:
            break
        assert answer["Link"].endswith('>; rel="next"')
        since = page[-1]["version"]
        assert f"since={since}" in answer["Link"] and "limit=10" in answer["Link"]
    assert versions == list(range(1, game.version + 1))
    assert pages == -(-game.version // 10)
