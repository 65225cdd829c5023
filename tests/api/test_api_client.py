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


# --- pacing and stopping (issue 34) ------------------------------------------------------------


def test_the_client_paces_itself_under_the_limit_and_is_never_refused_for_it(
    live_server, players, settings
):
    """The answers say what is left of the limit (RateLimit fields): the client spreads its
    calls over the window rather than run into a 429 and stall every game it plays."""
    settings.API_READ_RATE_LIMIT = "10/2s"
    connection = Connection(live_server.url, token_for(players[0]))
    statuses = []
    real = connection.http.request

    def request(*args, **kwargs):
        response = real(*args, **kwargs)
        statuses.append(response.status_code)
        return response

    connection.http.request = request
    started = time.monotonic()
    for _ in range(25):
        assert connection.get("/me")["username"] == players[0].username
    assert statuses == [200] * 25
    assert time.monotonic() - started >= 2  # 25 calls at 10 a window of 2 s: three windows


class FakeConnection:
    """The calls the player makes, answered as a site would, without a site."""

    def __init__(self):
        self.posts: list[str] = []

    def post(self, path, body=None):
        self.posts.append(path)
        if path == "/seek":
            return {"game": None, "waiting": True}
        return {}

    def get(self, path, **params):
        return {"status": "waiting", "your_seat": 0, "version": 1}

    def delete(self, path):
        self.posts.append(f"DELETE {path}")


def test_with_games_n_it_starts_no_more_than_n_and_ends_only_when_they_have_ended():
    connection = FakeConnection()
    player = Player(connection, Options(level="easy", games=1, accept_invitations=True))

    player.heard({"type": "invitation", "game": 7, "by": "ada"})
    player.heard({"type": "event", "game": 7, "version": 3, "kind": "joined"})
    player.heard({"type": "invitation", "game": 8, "by": "brian"})  # one game was asked for
    player.heard({"type": "start", "game": 7, "version": 4})

    assert connection.posts == ["/games/7/join"]
    assert not player.done()
    player.heard({"type": "end", "game": 7, "version": 90, "results": []})
    assert player.done()


def test_a_game_already_under_way_is_finished_before_the_client_stops():
    """Two games in play when it starts (a table it sat at before): `--games 1` plays both to
    their end, never leaving one half played."""
    connection = FakeConnection()
    player = Player(connection, Options(level="easy", games=1, seek_players=2))
    player.heard({"type": "game", "game": 1, "status": "playing", "version": 5, "your_move": False})
    player.heard({"type": "game", "game": 2, "status": "playing", "version": 9, "your_move": False})

    player.heard({"type": "end", "game": 1, "version": 60, "results": []})
    assert not player.done()
    assert "/seek" not in connection.posts  # it has its games
    player.heard({"type": "end", "game": 2, "version": 70, "results": []})
    assert player.done() and "/seek" not in connection.posts
