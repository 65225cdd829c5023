"""The repository's bot client plays whole games against a live server, through the API alone:
what it is given (the rules state, the version) is enough to play every move, and a move refused
as stale is thought again on the state now. Its stream and reconnection are tested with the real
stack in tests/e2e/test_api_clients_in_browser.py."""

import time
from datetime import timedelta

import pytest

from games.api_client.connection import Connection, Refused
from games.api_client.player import Options, Player
from games.models import Game
from games.play import actions
from games.state_store import load_state, read_game

from .helpers import token_for

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


def test_two_clients_play_a_whole_game_through_a_live_server(live_server, players, settings):
    settings.ACTION_RATE_LIMIT = "10000/m"  # two bots, one process, no thinking between moves
    game = actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=players[1])
    clients = {
        player.pk: Player(
            Connection(live_server.url, token_for(player)), Options(level="strong", think=0.05)
        )
        for player in players[:2]
    }
    for _ in range(400):
        found, seats = read_game(game.pk)
        if found.status != Game.Status.PLAYING:
            break
        state = load_state(found, seats)
        if state.forced_action() is not None:  # the worker's forced take, made here
            actions.take_last_tile(game_id=game.pk)
            continue
        waiting = [seat for seat in seats if state.waits_for(seat.number)]
        for seat in waiting:
            clients[seat.user_id].play(game.pk)
    found, seats = read_game(game.pk)
    assert found.status == Game.Status.ENDED
    assert all(seat.place is not None for seat in seats)
    # The strong player arranged its tiles: each board scores.
    assert any(seat.score and seat.score > 0 for seat in seats)


def test_a_stale_move_is_thought_again_not_applied(live_server, players, monkeypatch):
    game = actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=players[1])
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    drafter = seats[state.current].user
    client = Player(Connection(live_server.url, token_for(drafter)), Options(level="easy"))
    real_get = client.connection.get
    calls = []

    def get_then_change(path, **params):
        shown = real_get(path, **params)
        if not calls:  # someone else's tab drafts between the read and the move
            tile = state.draw_tiles()[-1]
            actions.play(game_id=game.pk, user=drafter, action={"type": "draft", "tile_id": tile},
                         seen_version=None)  # fmt: skip
        calls.append(path)
        return shown

    monkeypatch.setattr(client.connection, "get", get_then_change)
    client.play(game.pk)
    assert len(calls) >= 2  # it read the game again after the stale refusal
    found, seats = read_game(game.pk)
    assert found.current_seat != state.current  # and confirmed the draft made meanwhile
    assert found.pending_draft is None


def test_over_the_rate_limit_the_client_waits_as_told_and_goes_on(live_server, players, settings):
    settings.API_READ_RATE_LIMIT = "2/2s"
    connection = Connection(live_server.url, token_for(players[0]))
    started = time.monotonic()
    names = [connection.get("/me")["username"] for _ in range(3)]
    assert names == [players[0].username] * 3
    assert time.monotonic() - started >= 0.5  # the third waited for the next window


def test_a_revoked_token_stops_the_client_with_the_sites_words(live_server, players):
    from accounts import tokens

    token, secret = tokens.create_token(players[0], name="bot", scope="play")
    tokens.revoke(players[0], token.pk)
    connection = Connection(live_server.url, secret)
    with pytest.raises(Refused) as refused:
        connection.get("/me")
    assert refused.value.status == 401 and refused.value.code == "unauthorized"
