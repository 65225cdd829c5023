"""The API of tournaments: list and read them, join and withdraw with a play token, every
refusal in JSON with the site's code; the stream's lines of a round's new game say so."""

import pytest

from games.api import game_events
from games.models import Game
from games.tournaments import actions
from games.tournaments.models import Tournament
from tests.api.helpers import Client, token_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client):
    def as_player(user, scope="play"):
        return Client(client, token_for(user, scope))

    return as_player


def test_listing_reading_joining_and_withdrawing(api, open_tournament, players):
    tournament = open_tournament(name="API cup", table_size=3, max_players=2)
    hidden = open_tournament(name="Private", access=Tournament.Access.INVITATION)
    ada = api(players[0])

    listed = ada.get("/tournaments", status="open").json()
    assert [item["name"] for item in listed["items"]] == ["API cup"]
    assert listed["count"] == 1
    assert hidden.pk not in [item["id"] for item in listed["items"]]

    joined = ada.post(f"/tournaments/{tournament.pk}/join")
    assert joined.status_code == 200, joined.content
    assert joined.json()["registered"] is True and joined.json()["entrants"] == 1
    again = ada.post(f"/tournaments/{tournament.pk}/join")
    assert again.status_code == 400  # a well-formed request the site refuses
    assert again.json()["code"] == "already_registered"

    api(players[1]).post(f"/tournaments/{tournament.pk}/join")
    full = api(players[2]).post(f"/tournaments/{tournament.pk}/join")
    assert full.json() == {"code": "full", "message": "This tournament is full."}
    refused = api(players[2]).post(f"/tournaments/{hidden.pk}/join")
    assert refused.json()["code"] == "not_invited"
    token = api(players[2]).post(
        f"/tournaments/{hidden.pk}/join", {"invite_token": hidden.invite_token}
    )
    assert token.status_code == 200

    left = ada.post(f"/tournaments/{tournament.pk}/withdraw")
    assert left.status_code == 200 and left.json()["registered"] is False
    assert ada.post("/tournaments/999999/join").status_code == 404
    reader = api(players[3], scope="read")
    assert reader.post(f"/tournaments/{tournament.pk}/join").status_code == 403
    read = reader.get(f"/tournaments/{tournament.pk}").json()
    assert read["place_points"]["3"] == ["2", "1", "0"]
    assert read["standings"] == [] and read["rounds_made"] == []


def test_a_running_tournament_reads_its_standings_and_tables(
    api, open_tournament, players, committed
):
    tournament = open_tournament(table_size=2, rounds=2)
    for player in players[:3]:
        actions.register(tournament_id=tournament.pk, user=player)
    committed(actions.start, tournament_id=tournament.pk, by=tournament.created_by)
    read = api(players[0], "read").get(f"/tournaments/{tournament.pk}").json()
    assert read["status"] == "running" and read["round"] == 1
    assert len(read["standings"]) == 3
    (first,) = read["rounds_made"]
    assert len(first["tables"]) == 1 and len(first["byes"]) == 1
    game = Game.objects.get(pk=first["tables"][0]["game_id"])
    seated = game.seats.get(number=0).user

    line = game_events.look(game.pk, seated.pk).lines[0]
    assert line["tournament"] == {"id": tournament.pk, "round": 1}
    started = game_events.catch_up(game.pk, seated.pk, game_events.Followed(0, None)).lines
    assert {"type": "start", "game": game.pk}.items() <= next(
        item for item in started if item["type"] == "start"
    ).items()
    assert next(item for item in started if item["type"] == "start")["tournament"]["round"] == 1
