"""Playing through the API: whole games, and every refusal a client must be able to branch on."""

from datetime import timedelta

import pytest
from django.test import Client as DjangoClient

from accounts import tokens
from games.models import Event, Game
from games.play import actions
from games.rules.greedy import next_action
from games.state_store import load_state, read_game

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_of(players):
    """`api_of(user, scope)`: a client for that player with a new token."""

    def make(user, scope="play"):
        return Client(DjangoClient(), token_for(user, scope))

    return make


def test_two_clients_play_a_whole_game_from_what_the_api_tells_them(
    start_game, players, api_of, committed
):
    game = start_game(2)
    clients = {player.pk: api_of(player) for player in players[:2]}
    moves = 0
    while True:
        found, seats = read_game(game.pk)
        if found.status != Game.Status.PLAYING:
            break
        state = load_state(found, seats)
        if state.forced_action() is not None:  # the worker's forced take
            committed(actions.take_last_tile, game_id=game.pk)
            continue
        seat, action = next_action(state)
        client = clients[seats[seat].user_id]
        shown = client.get(f"/games/{game.pk}").json()
        # What the client is shown is what it needs: whose move, and the version to send.
        assert shown["version"] == found.version
        if action.type in ("draft", "confirm_draft", "finish"):
            assert action.to_json() in shown["legal_actions"]
        answer = client.post(
            f"/games/{game.pk}/actions", {"version": shown["version"], "action": action.to_json()}
        )
        assert answer.status_code == 200, answer.content
        assert answer.json()["version"] > shown["version"]
        moves += 1
    found, seats = read_game(game.pk)
    assert found.status == Game.Status.ENDED
    assert moves > 20
    summary = clients[players[0].pk].get(f"/games/{game.pk}").json()
    assert summary["status"] == "ended"
    assert sorted(seat["place"] for seat in summary["seats"]) in ([1, 2], [1, 1])
    replay = clients[players[0].pk].get(f"/games/{game.pk}/replay").json()
    assert replay["start"]["seed"] == found.seed
    assert [event["version"] for event in replay["events"]] == sorted(
        event["version"] for event in replay["events"]
    )


def test_a_move_against_an_older_version_is_refused_as_stale_with_the_version_now(
    start_game, api_of
):
    game = start_game(2)
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    drafter = seats[state.current].user
    client = api_of(drafter)
    tile = state.draw_tiles()[0]
    answer = client.post(
        f"/games/{game.pk}/actions",
        {"version": found.version, "action": {"type": "draft", "tile_id": tile}},
    )
    assert answer.status_code == 200
    other = state.draw_tiles()[-1] if len(state.draw_tiles()) > 1 else tile
    # The page it acted on is older than the draft it just made: confirm against it is stale.
    stale = client.post(
        f"/games/{game.pk}/actions",
        {"version": found.version - 1, "action": {"type": "confirm_draft"}},
    )
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "stale"
    assert body["version"] == found.version + 1
    assert other is not None
    assert Game.objects.get(pk=game.pk).pending_draft is not None  # nothing applied


def test_refusals_come_with_the_rules_code_and_words(start_game, players, api_of):
    game = start_game(2)
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    waiting = api_of(seats[1 - state.current].user)
    not_turn = waiting.post(
        f"/games/{game.pk}/actions",
        {"version": found.version, "action": {"type": "draft", "tile_id": state.draw_tiles()[0]}},
    )
    assert not_turn.status_code == 409
    assert not_turn.json()["code"] == "not_your_turn"
    assert "not your turn" in not_turn.json()["message"]

    drafter = api_of(seats[state.current].user)
    outside = next(tile for tile in range(60) if tile not in state.draw_tiles())
    illegal = drafter.post(
        f"/games/{game.pk}/actions",
        {"version": found.version, "action": {"type": "draft", "tile_id": outside}},
    )
    assert illegal.status_code == 400
    assert illegal.json()["code"] == "not_in_draw_column"

    nonsense = drafter.post(
        f"/games/{game.pk}/actions", {"version": found.version, "action": {"type": "fly"}}
    )
    assert nonsense.status_code == 400
    assert nonsense.json()["code"] == "bad_action"

    server_only = drafter.post(
        f"/games/{game.pk}/actions",
        {"version": found.version, "action": {"type": "take_last", "tile_id": 1}},
    )
    assert server_only.status_code == 400

    missing_field = drafter.post(f"/games/{game.pk}/actions", {"action": {"type": "draft"}})
    assert missing_field.status_code == 422
    assert missing_field.json()["code"] == "bad_request"
    assert Game.objects.get(pk=game.pk).version == found.version


def test_a_player_cannot_act_on_a_game_they_do_not_play(start_game, players, api_of):
    game = start_game(2)
    outsider = api_of(players[3])
    found, _ = read_game(game.pk)
    answer = outsider.post(
        f"/games/{game.pk}/actions",
        {"version": found.version, "action": {"type": "confirm_draft"}},
    )
    assert answer.status_code == 403
    assert answer.json()["code"] == "not_a_player"
    assert outsider.post(f"/games/{game.pk}/resign").status_code == 403
    assert Game.objects.get(pk=game.pk).version == found.version


def test_a_private_game_does_not_reveal_itself(start_game, players, api_of):
    game = start_game(2, private=True)
    outsider = api_of(players[3])
    for path in (f"/games/{game.pk}", f"/games/{game.pk}/events"):
        answer = outsider.get(path)
        assert answer.status_code == 404
        assert answer.json()["code"] == "not_found"
    assert api_of(players[0]).get(f"/games/{game.pk}").status_code == 200
    assert outsider.get("/games/999999").status_code == 404


def test_a_read_token_reads_but_never_plays(start_game, players, api_of):
    game = start_game(2)
    reader = api_of(players[0], scope="read")
    assert reader.get(f"/games/{game.pk}").status_code == 200
    found, _ = read_game(game.pk)
    answer = reader.post(
        f"/games/{game.pk}/actions", {"version": found.version, "action": {"type": "confirm_draft"}}
    )
    assert answer.status_code == 403
    assert answer.json()["code"] == "scope"
    assert reader.post(f"/games/{game.pk}/resign").status_code == 403
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING


def test_no_token_or_a_revoked_one_is_unauthorized(players):
    anonymous = Client(DjangoClient(), None)
    answer = anonymous.get("/me")
    assert answer.status_code == 401
    assert answer.json()["code"] == "unauthorized"
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    token, secret = tokens.create_token(players[0], name="bot", scope="play")
    client = Client(DjangoClient(), secret)
    assert client.get("/me").json()["username"] == players[0].username
    tokens.revoke(players[0], token.pk)
    assert client.get("/me").status_code == 401
    assert Client(DjangoClient(), secret + "x").get("/me").status_code == 401
    # The site's session does not sign anyone in to the API: only tokens do.
    browser = DjangoClient()
    browser.force_login(players[0])
    assert browser.get("/api/v1/me").status_code == 401


def test_moves_share_the_sites_rate_limit(start_game, players, api_of, settings):
    settings.ACTION_RATE_LIMIT = "2/m"
    game = start_game(2)
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    client = api_of(seats[state.current].user)
    tile = state.draw_tiles()[0]
    first = client.post(
        f"/games/{game.pk}/actions",
        {"version": found.version, "action": {"type": "draft", "tile_id": tile}},
    )
    assert first.status_code == 200
    second = client.post(
        f"/games/{game.pk}/actions", {"version": None, "action": {"type": "undo_draft"}}
    )
    assert second.status_code == 200
    third = client.post(
        f"/games/{game.pk}/actions",
        {"version": None, "action": {"type": "draft", "tile_id": tile}},
    )
    assert third.status_code == 429
    assert third.json()["code"] == "rate_limited"
    assert int(third.headers["Retry-After"]) > 0
    assert Game.objects.get(pk=game.pk).pending_draft is None  # the third changed nothing


def test_tables_are_opened_joined_and_started_through_the_api(players, api_of):
    creator, joiner = api_of(players[0]), api_of(players[1])
    made = creator.post(
        "/games", {"player_count": 3, "time_per_move": "1d", "invitees": [players[2].username]}
    )
    assert made.status_code == 201, made.content
    game_id = made.json()["id"]
    assert made.json()["status"] == "waiting"
    assert joiner.post(f"/games/{game_id}/join").status_code == 200
    declined = api_of(players[2]).post(f"/games/{game_id}/decline")
    assert declined.status_code == 204
    started = creator.post(f"/games/{game_id}/start")
    assert started.status_code == 200, started.content
    assert started.json()["status"] == "playing"
    assert [p["username"] for p in started.json()["players"]] == [
        players[0].username,
        players[1].username,
    ] or started.json()["player_count"] == 2
    wrong = creator.post("/games", {"player_count": 7})
    assert wrong.status_code == 422
    assert wrong.json()["code"] == "bad_request"


def test_a_game_against_computer_players_starts_at_once(players, api_of):
    client = api_of(players[0])
    made = client.post("/games", {"player_count": 2, "easy_bots": 1})
    assert made.status_code == 201
    assert made.json()["status"] == "playing"
    assert any(player["bot"] for player in made.json()["players"])


def test_an_expert_computer_player_takes_a_seat_and_a_level_there_is_not_is_refused(
    players, api_of
):
    client = api_of(players[0])
    made = client.post("/games", {"player_count": 3, "expert_bots": 1, "strong_bots": 1})
    assert made.status_code == 201, made.content
    assert made.json()["status"] == "playing"
    bots = {player["username"] for player in made.json()["players"] if player["bot"]}
    assert bots == {"ExpertBot", "StrongBot"}
    crowded = client.post("/games", {"player_count": 2, "expert_bots": 2})
    assert crowded.status_code == 400 and crowded.json()["code"] == "bots"
    # A level the site has not is a field the table does not know: refused, nothing opened.
    unknown = client.post("/games", {"player_count": 2, "grandmaster_bots": 1})
    assert unknown.status_code == 422
    assert unknown.json()["code"] == "bad_request"
    assert "grandmaster_bots" in unknown.json()["message"]
    assert [game["id"] for game in client.get("/me/games").json()["items"]] == [made.json()["id"]]


def test_quick_play_pairs_two_api_players(players, api_of):
    first, second = api_of(players[0]), api_of(players[1])
    asked = first.post("/seek", {"player_count": 2, "time_per_move": "1d"})
    assert asked.status_code == 200
    assert asked.json() == {"game": None, "waiting": True}
    paired = second.post("/seek", {"player_count": 2, "time_per_move": "1d"})
    assert paired.json()["waiting"] is False
    game_id = paired.json()["game"]["id"]
    mine = first.get("/me/games", status="playing").json()
    assert [game["id"] for game in mine["items"]] == [game_id]
    assert first.delete("/seek").status_code == 204


def test_the_event_log_from_a_version_hides_the_seed_while_playing(start_game, api_of, players):
    game = start_game(2)
    client = api_of(players[0])
    log = client.get(f"/games/{game.pk}/events").json()
    assert [event["version"] for event in log] == list(range(1, game.version + 1))
    assert all("seed" not in event["data"] for event in log)
    later = client.get(f"/games/{game.pk}/events", since=game.version - 1).json()
    assert [event["version"] for event in later] == [game.version]
    assert client.get(f"/games/{game.pk}/replay").json()["code"] == "not_ended"


def test_my_games_says_which_wait_for_my_move(start_game, players, api_of):
    game = start_game(2)
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    to_move, waiting = seats[state.current].user, seats[1 - state.current].user
    mine = api_of(to_move).get("/me/games", your_move="true").json()
    assert [item["id"] for item in mine["items"]] == [game.pk]
    assert api_of(waiting).get("/me/games", your_move="true").json()["items"] == []
    assert Event.objects.filter(game=game).count() == game.version


def test_the_schema_and_its_docs_are_served(client):
    schema = client.get("/api/v1/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/games/{game_id}/actions" in paths
    assert schema.json()["components"]["securitySchemes"]
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content


def test_profiles_and_the_leaderboard(players, api_of):
    client = api_of(players[0], scope="read")
    me = client.get("/me").json()
    assert me["username"] == players[0].username
    assert me["rating"]["games"] == 0
    other = client.get(f"/players/{players[1].username}").json()
    assert other["username"] == players[1].username
    assert client.get("/players/nobody-at-all").status_code == 404
    assert client.get("/leaderboard").json() == []
    tiles = client.get("/tiles").json()
    assert len(tiles) == 60 and {tile["id"] for tile in tiles} == set(range(60))


def test_the_time_per_move_is_one_the_site_offers(players, api_of):
    answer = api_of(players[0]).post("/games", {"time_per_move": "5m"})
    assert answer.status_code == 422
    assert timedelta  # the site's own choices decide (games/play/forms.py)


def test_a_body_that_is_not_a_json_object_is_refused(players, api_of):
    client = api_of(players[0])
    for body in ("[null, null]", "3", '"game"', "{not json"):
        answer = client.client.post(
            "/api/v1/games", body, content_type="application/json", headers=client.headers
        )
        assert answer.status_code == 400, body
        assert answer.json()["code"] == "bad_request"
    assert not Game.objects.exists()


def test_the_rules_state_loads_in_the_rules_package_as_the_game_is(start_game, players, api_of):
    from games import rules

    game = start_game(3)
    found, seats = read_game(game.pk)
    shown = api_of(players[0]).get(f"/games/{game.pk}").json()
    state = rules.GameState.from_json(shown["rules_state"])
    real = load_state(found, seats)
    assert state.columns == real.columns and state.current == real.current
    assert shown["rules_state"]["seed"] == 0  # hidden while the game is played
    me = shown["your_seat"]
    assert state.legal_actions(me, arranging=False) == real.legal_actions(me, arranging=False)


def test_reads_are_limited_per_player_and_told_when_to_come_back(players, api_of, settings):
    settings.API_READ_RATE_LIMIT = "3/m"
    client = api_of(players[0], scope="read")
    assert [client.get("/me").status_code for _ in range(3)] == [200, 200, 200]
    limited = client.get("/me")
    assert limited.status_code == 429
    assert limited.json()["code"] == "rate_limited"
    assert "Too many API reads" in limited.json()["message"]
    assert int(limited.headers["Retry-After"]) == limited.json()["retry_after"] > 0
    # Another player's reads are theirs.
    assert api_of(players[1], scope="read").get("/me").status_code == 200


def test_a_bot_account_plays_with_its_owners_token_for_it_and_says_who_runs_it(players, api_of):
    from accounts import api_bots

    bot = api_bots.create_bot(players[0], username="adabot")
    client = api_of(bot)
    me = client.get("/me").json()
    assert me["bot"] is True and me["run_by"] == players[0].username
    made = client.post("/games", {"player_count": 2})
    assert made.status_code == 201
    assert made.json()["players"] == [{"username": "adabot", "bot": True}]


def test_a_finished_rated_game_shows_in_the_players_history_and_ratings(
    start_game, players, api_of, committed
):
    from tests.games.playing import play_to_the_end

    game = start_game(2)
    committed(play_to_the_end, game)
    client = api_of(players[2], scope="read")
    history = client.get(f"/players/{players[0].username}/games").json()
    assert [item["id"] for item in history["items"]] == [game.pk]
    assert history["items"][0]["status"] == "ended"
    ratings = client.get(f"/players/{players[0].username}/ratings").json()
    assert [step["game"] for step in ratings] == [game.pk]
    assert ratings[0]["games"] == 1 and ratings[0]["place"] in (1, 2)
    profile = client.get(f"/players/{players[0].username}").json()
    assert profile["rating"]["display"] == ratings[0]["display"]
    assert profile["statistics"]["played"] == 1
