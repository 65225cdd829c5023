"""The API's stream, `GET /api/v1/stream`: newline-delimited JSON of the caller's games, driven
in-process through the ASGI application daphne serves (microchip_site/asgi.py), on the real
Redis channel layer, with moves made through games/play/actions/ as the site makes them."""

import asyncio
import gc
import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from django.core.cache import cache

from accounts import tokens
from games import rules, tasks
from games.api import stream as stream_module
from games.models import Event, Game
from games.play import actions
from microchip_site.asgi import application
from tests.games.playing import current_state, play_to_the_end

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture(autouse=True)
def _layer(live_layer, closes_thread_connections):
    """The real Redis channel layer (tests/conftest.py), the ORM's thread connections closed."""


class Stream:
    """One client of the stream: the HTTP request as daphne hands it to the application, and
    the lines of its answer as they come."""

    def __init__(self, secret: str | None, query: str = ""):
        headers = [(b"host", b"testserver")]
        if secret:
            headers.append((b"authorization", f"Bearer {secret}".encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": "/api/v1/stream",
            "raw_path": b"/api/v1/stream",
            "query_string": query.encode(),
            "headers": headers,
            "client": ["127.0.0.1", 40000],
            "server": ["testserver", 80],
        }
        self.app = ApplicationCommunicator(application, scope)
        self.buffer = b""
        self.ended = False
        self.status = None
        self.headers = {}

    async def open(self) -> "Stream":
        await self.app.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await self.app.receive_output(5)
        assert start["type"] == "http.response.start"
        self.status = start["status"]
        self.headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}
        return self

    async def _more(self, timeout: float) -> None:
        message = await self.app.receive_output(timeout)
        assert message["type"] == "http.response.body"
        self.buffer += message.get("body", b"")
        if not message.get("more_body", False):
            self.ended = True

    async def line(self, timeout: float = 5):
        """The next line: a dict, or "" for a keep-alive; EOFError once the stream has ended."""
        while b"\n" not in self.buffer:
            if self.ended:
                raise EOFError(self.buffer)
            await self._more(timeout)
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line) if line.strip() else ""

    async def next_of(self, kind: str, game=None, timeout: float = 5) -> dict:
        """The next line of this type (of this game), the others before it skipped."""
        while True:
            line = await self.line(timeout)
            if line and line["type"] == kind and (game is None or line["game"] == game.pk):
                return line

    async def lines_until_quiet(self, quiet: float = 0.5) -> list:
        """Every line that comes until nothing more does for `quiet` seconds."""
        while not self.ended and not await self.app.receive_nothing(quiet):
            await self._more(1)
        lines = []
        while b"\n" in self.buffer:
            lines.append(await self.line())
        return lines

    async def body(self) -> dict:
        """The whole answer of a refusal, as JSON."""
        while not self.ended:
            await self._more(5)
        return json.loads(self.buffer)

    async def close(self) -> None:
        """The client goes away; the application must finish."""
        await self.app.send_input({"type": "http.disconnect"})
        await self.app.wait(5)


async def stream_of(user, query: str = "", scope: str = "read") -> Stream:
    _, secret = await sync_to_async(tokens.create_token)(user, name="stream", scope=scope)
    return await Stream(secret, query).open()


def seat_of(game, number):
    return game.seats.select_related("user").get(number=number)


def draft_and_confirm(game):
    """The player whose turn it is drafts the draw column's top tile and confirms; return
    their seat number. Each change commits and pushes, as a move made over HTTP."""
    state = current_state(game)
    user = seat_of(game, state.current).user
    for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    return state.current


def versions_after(game, version, but=()) -> list[int]:
    """The versions of the game's events after `version` (but those of the kinds `but`)."""
    return list(
        Event.objects.filter(game=game, number__gt=version)
        .exclude(kind__in=but)
        .order_by("number")
        .values_list("number", flat=True)
    )


# --- opening ---------------------------------------------------------------------------------


async def test_the_stream_opens_with_a_line_for_each_of_the_players_games(start_game, players):
    game = await sync_to_async(start_game)(2)
    table = await sync_to_async(actions.create_game)(
        creator=players[0], player_count=3, time_per_move=timedelta(days=1)
    )
    state = await sync_to_async(current_state)(game)
    ada = await sync_to_async(lambda: game.seats.get(user=players[0]).number)()

    stream = await stream_of(players[0])

    assert stream.status == 200
    assert stream.headers["content-type"] == "application/x-ndjson"
    assert stream.headers["x-accel-buffering"] == "no"
    opening = await stream.lines_until_quiet()
    assert opening == [
        {
            "type": "game",
            "game": game.pk,
            "status": "playing",
            "version": game.version,
            "your_move": state.current == ada,
        },
        {"type": "game", "game": table.pk, "status": "waiting", "version": 1, "your_move": False},
    ]
    await stream.close()


async def test_no_token_a_wrong_one_and_a_revoked_one_are_refused_in_json(players):
    token, secret = await sync_to_async(tokens.create_token)(players[0], name="t", scope="read")
    await sync_to_async(tokens.revoke)(players[0], token.pk)

    for secret_sent in (None, "mco_not-a-token", secret):
        refused = await Stream(secret_sent).open()
        assert refused.status == 401
        assert (await refused.body())["code"] == "unauthorized"
        await refused.app.wait(5)


async def test_a_malformed_since_is_refused(players):
    stream = await stream_of(players[0], "since=12-3")
    assert stream.status == 422
    assert (await stream.body())["code"] == "bad_request"
    await stream.app.wait(5)


# --- live ------------------------------------------------------------------------------------


async def test_a_move_of_the_other_player_arrives_as_its_events_then_your_move(start_game):
    game = await sync_to_async(start_game)(2)
    state = await sync_to_async(current_state)(game)
    waiting = await sync_to_async(seat_of)(game, 1 - state.current)
    stream = await stream_of(waiting.user)
    snapshot = await stream.line()
    assert (snapshot["type"], snapshot["your_move"]) == ("game", False)

    await sync_to_async(draft_and_confirm)(game)

    await sync_to_async(game.refresh_from_db)()
    expected = await sync_to_async(versions_after)(game, snapshot["version"])
    events = [await stream.next_of("event", game) for _ in expected]
    assert [event["version"] for event in events] == expected
    assert [event["kind"] for event in events][:2] == ["draft", "confirm_draft"]
    assert events[0]["seat"] == state.current and events[0]["action"]["type"] == "draft"
    your_move = await stream.line()
    assert your_move == {"type": "your_move", "game": game.pk, "version": game.version}
    assert await stream.lines_until_quiet() == []  # once, not again
    await stream.close()


async def test_the_end_arrives_with_the_results(start_game):
    game = await sync_to_async(start_game)(2)
    loser, winner = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    stream = await stream_of(winner.user)
    await stream.next_of("game")

    resigned = await sync_to_async(actions.resign)(game_id=game.pk, user=loser.user)

    end = await stream.next_of("end")
    await sync_to_async(game.refresh_from_db)()
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    assert game.status == Game.Status.ENDED
    assert end["game"] == game.pk and end["status"] == "ended"
    # The game's end, or the post-game analysis recorded after it if that came first.
    assert resigned.game.version <= end["version"] <= game.version
    places = {seat.user.username: (seat.place, seat.score) for seat in seats}
    assert [(row["player"]["username"], row["place"]) for row in end["results"]] == [
        (winner.user.username, 1),
        (loser.user.username, 2),
    ]
    assert all((row["place"], row["score"]) == places[row["player"]["username"]]
               for row in end["results"])  # fmt: skip
    # The game is no longer followed: its group is left, and nothing more comes of it.
    assert await stream.lines_until_quiet() == []
    await stream.close()


@pytest.mark.slow
async def test_a_whole_game_streams_every_event_in_order_and_ends(start_game):
    game = await sync_to_async(start_game)(2)
    player = await sync_to_async(lambda: game.seats.select_related("user").first().user)()
    stream = await stream_of(player)
    first = await stream.next_of("game")

    await sync_to_async(play_to_the_end)(game)

    lines = []
    while not lines or lines[-1]["type"] != "end":
        lines.append(await stream.line())
    # The game ended with its last rules event; the analysis recorded after it is not the
    # stream's (it is in the replay).
    ended = await sync_to_async(
        lambda: game.events.exclude(kind="analysed").latest("number").number
    )()
    end = lines[-1]["version"]
    assert end == ended
    events = [line["version"] for line in lines if line and line["type"] == "event"]
    assert events == list(range(first["version"] + 1, end + 1))
    moves = [line for line in lines if line and line["type"] == "your_move"]
    assert moves and all(move["version"] <= ended for move in moves)
    await stream.close()


# --- resuming --------------------------------------------------------------------------------


async def test_resuming_sends_exactly_the_events_after_the_version_then_goes_on_live(start_game):
    game = await sync_to_async(start_game)(2)
    since = game.version
    for _ in range(2):
        await sync_to_async(draft_and_confirm)(game)
    await sync_to_async(game.refresh_from_db)()
    state = await sync_to_async(current_state)(game)
    player = await sync_to_async(seat_of)(game, state.current)

    stream = await stream_of(player.user, f"since={game.pk}:{since}")

    lines = await stream.lines_until_quiet()
    expected = await sync_to_async(versions_after)(game, since)
    assert [line["version"] for line in lines if line["type"] == "event"] == expected
    assert all(line["type"] != "game" for line in lines)  # no snapshot of a resumed game
    assert lines[-1] == {"type": "your_move", "game": game.pk, "version": game.version}

    mover = await sync_to_async(draft_and_confirm)(game)  # live from there on
    assert mover == player.number
    event = await stream.next_of("event", game)
    assert event["version"] == game.version + 1
    await stream.close()


async def test_resuming_a_game_that_ended_meanwhile_sends_its_last_events_and_its_end(start_game):
    game = await sync_to_async(start_game)(2)
    since = game.version
    loser, winner = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    await sync_to_async(actions.resign)(game_id=game.pk, user=loser.user)
    await sync_to_async(game.refresh_from_db)()

    stream = await stream_of(winner.user, f"since={game.pk}:{since}")

    lines = await stream.lines_until_quiet()
    expected = await sync_to_async(versions_after)(game, since, but=("analysed",))
    assert [line["version"] for line in lines if line["type"] == "event"] == expected
    assert lines[-1]["type"] == "end" and lines[-1]["version"] == expected[-1]
    await stream.close()


async def test_resuming_from_the_last_version_of_an_ended_game_says_nothing_of_it(start_game):
    game = await sync_to_async(start_game)(2)
    loser, winner = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    await sync_to_async(actions.resign)(game_id=game.pk, user=loser.user)
    await sync_to_async(game.refresh_from_db)()

    stream = await stream_of(winner.user, f"since={game.pk}:{game.version}")

    assert await stream.lines_until_quiet() == []
    await stream.close()


async def test_the_seed_stays_hidden_while_the_game_is_played(start_game):
    game = await sync_to_async(start_game)(2)
    player = await sync_to_async(lambda: game.seats.select_related("user").first().user)()
    stream = await stream_of(player, f"since={game.pk}:0")
    lines = await stream.lines_until_quiet()
    started = next(line for line in lines if line["type"] == "event" and line["kind"] == "started")
    assert "seed" not in started["data"]
    assert lines[lines.index(started) + 1] == {
        "type": "start",
        "game": game.pk,
        "version": started["version"],
    }
    await stream.close()


# --- tables ----------------------------------------------------------------------------------


async def test_an_invitation_then_the_start_of_the_table(players):
    brian = await stream_of(players[1])
    assert await brian.lines_until_quiet() == []

    table = await sync_to_async(actions.create_game)(
        creator=players[0],
        player_count=2,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
    )

    assert await brian.line() == {"type": "invitation", "game": table.pk, "by": "ada"}

    await sync_to_async(actions.join_game)(game_id=table.pk, user=players[1])

    lines = []
    while not lines or lines[-1]["type"] != "start":
        lines.append(await brian.line())
    await sync_to_async(table.refresh_from_db)()
    started = await sync_to_async(lambda: table.events.get(kind="started").number)()
    assert lines[-1] == {"type": "start", "game": table.pk, "version": started}
    # Seated now: the table's whole log, from its first event.
    assert [line["version"] for line in lines if line["type"] == "event"] == list(
        range(1, started + 1)
    )
    await brian.close()


async def test_a_table_the_player_sits_at_starts(players):
    table = await sync_to_async(actions.create_game)(
        creator=players[0], player_count=2, time_per_move=timedelta(days=1)
    )
    ada = await stream_of(players[0])
    assert (await ada.line())["status"] == "waiting"

    await sync_to_async(actions.join_game)(game_id=table.pk, user=players[1])

    joined = await ada.next_of("event", table)
    assert joined["kind"] == "joined"
    start = await ada.next_of("start", table)
    await sync_to_async(table.refresh_from_db)()
    assert start["version"] <= table.version
    await ada.close()


async def test_a_cancelled_table_ends_without_results(players):
    table = await sync_to_async(actions.create_game)(
        creator=players[0], player_count=3, time_per_move=timedelta(days=1)
    )
    await sync_to_async(actions.join_game)(game_id=table.pk, user=players[1])
    brian = await stream_of(players[1])
    await brian.next_of("game")

    await sync_to_async(actions.cancel_game)(game_id=table.pk, user=players[0])

    end = await brian.next_of("end")
    assert (end["status"], end["results"]) == ("cancelled", [])
    await brian.close()


# --- privacy ---------------------------------------------------------------------------------


async def test_other_players_games_never_appear(start_game, players):
    game = await sync_to_async(start_game)(2)  # ada and brian
    private = await sync_to_async(actions.create_game)(
        creator=players[3],
        player_count=2,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("esme",),
    )
    chloe = await stream_of(players[2])

    await sync_to_async(actions.join_game)(game_id=private.pk, user=players[4])
    await sync_to_async(draft_and_confirm)(game)
    await sync_to_async(draft_and_confirm)(private)

    assert await chloe.lines_until_quiet(1.0) == []
    await chloe.close()


# --- its life --------------------------------------------------------------------------------


async def test_keep_alive_lines_and_the_end_of_the_lifetime(players, settings):
    settings.API_STREAM_KEEPALIVE = 0.2
    stream = await stream_of(players[0], "timeout=1")

    assert await stream.line() == ""
    with pytest.raises(EOFError):
        while True:
            assert await stream.line(3) == ""
    await stream.app.wait(5)


async def test_a_revoked_token_ends_the_stream_at_the_next_check(players, settings):
    settings.API_STREAM_CHECK = 0.2
    token, secret = await sync_to_async(tokens.create_token)(players[0], name="t", scope="read")
    stream = await Stream(secret).open()

    await sync_to_async(tokens.revoke)(players[0], token.pk)

    with pytest.raises(EOFError):
        while True:
            await stream.line(3)
    await stream.app.wait(5)


async def test_a_lost_push_is_made_good_by_the_check(start_game, settings, monkeypatch):
    settings.API_STREAM_CHECK = 0.3
    game = await sync_to_async(start_game)(2)
    player = await sync_to_async(lambda: game.seats.select_related("user").first().user)()
    stream = await stream_of(player)
    await stream.next_of("game")
    from games.live import pushes

    monkeypatch.setattr(pushes, "send", lambda messages: False)  # every push lost
    await sync_to_async(draft_and_confirm)(game)

    event = await stream.next_of("event", game, timeout=3)
    assert event["version"] == game.version + 1
    await stream.close()


async def test_a_player_has_at_most_four_streams_and_a_closed_one_gives_its_place_back(players):
    streams = [await stream_of(players[0]) for _ in range(4)]
    assert all(stream.status == 200 for stream in streams)

    refused = await stream_of(players[0])
    assert refused.status == 429
    assert (await refused.body())["code"] == "too_many_streams"
    await refused.app.wait(5)

    await streams[0].close()
    again = await stream_of(players[0])
    assert again.status == 200
    for stream in [*streams[1:], again]:
        await stream.close()


async def test_a_closed_stream_leaves_every_group_of_the_channel_layer(
    start_game, players, settings
):
    settings.CHANNEL_LAYERS = IN_MEMORY
    game = await sync_to_async(start_game)(2)
    player = await sync_to_async(lambda: game.seats.select_related("user").first().user)()
    stream = await stream_of(player)
    await stream.next_of("game")
    layer = get_channel_layer()
    assert set(layer.groups) >= {f"game-{game.pk}", f"user-{player.pk}"}

    await stream.close()

    assert not any(layer.groups.values())
    assert not layer.channels


async def test_a_stream_dropped_between_two_lines_leaves_its_groups_too(
    start_game, players, settings
):
    """A client that goes away while its stream is handing a line over: Django's handler closes
    only its own wrapper of the lines, and the stream is finalized when dropped (asyncio's
    hook for async generators): its `finally` leaves the groups and gives the slot back."""
    settings.CHANNEL_LAYERS = IN_MEMORY
    game = await sync_to_async(start_game)(2)
    player = await sync_to_async(lambda: game.seats.select_related("user").first().user)()
    token, _ = await sync_to_async(tokens.create_token)(player, name="t", scope="read")
    slot = await stream_module.Slot.take(player.pk)
    lines = stream_module.Stream(player.pk, token.pk, {}, 60, slot).lines()
    assert await lines.__anext__() == ""  # the headers' write
    first = await lines.__anext__()  # suspended at the yield of its first lines
    assert json.loads(first)["type"] == "game"
    layer = get_channel_layer()
    assert any(layer.groups.values())

    del lines
    gc.collect()
    for _ in range(50):
        if not any(layer.groups.values()):
            break
        await asyncio.sleep(0.02)

    assert not any(layer.groups.values())
    assert await cache.aget(slot.key) is None


async def test_the_schema_describes_the_lines(client):
    schema = await sync_to_async(client.get)("/api/v1/openapi.json")
    operation = schema.json()["paths"]["/api/v1/stream"]["get"]
    content = operation["responses"]["200"]["content"]
    kinds = {line["properties"]["type"]["const"]
             for line in content["application/x-ndjson"]["schema"]["oneOf"]}  # fmt: skip
    assert kinds == {"game", "invitation", "event", "start", "your_move", "end", "chat"}
    assert {"since", "timeout"} <= {parameter["name"] for parameter in operation["parameters"]}
    assert operation["responses"]["429"]


async def test_a_table_the_player_opens_or_joins_is_followed_at_once(players, settings):
    settings.API_STREAM_CHECK = 600  # not the periodic look: the player's own push
    creator, joiner = players[0], players[1]
    stream = await stream_of(joiner)
    assert await stream.lines_until_quiet() == []
    game = await sync_to_async(actions.create_game)(
        creator=creator, player_count=3, time_per_move=timedelta(days=1)
    )
    assert await stream.lines_until_quiet() == []  # not theirs
    await sync_to_async(actions.join_game)(game_id=game.pk, user=joiner)
    joined = await stream.next_of("event", game, timeout=3)
    assert joined["kind"] == "created"  # from its first event on
    await stream.close()
    opened = await stream_of(creator)
    await opened.lines_until_quiet()
    second = await sync_to_async(actions.create_game)(
        creator=creator, player_count=2, time_per_move=timedelta(days=1)
    )
    first_line = await opened.next_of("event", second, timeout=3)
    assert first_line["version"] == 1
    await opened.close()


async def test_the_post_game_analysis_is_not_a_stream_event_and_the_end_comes_once(
    start_game, lost_tasks
):
    """The end line's version is the game's last move's: the analysis recorded after it (an
    event of the log, and in the replay) never comes on the stream, live or resumed, so a
    client resuming from the end's version hears nothing more of the game (issue 34: it was
    sent the analysis then a second end)."""
    lost = lost_tasks("games.analyse_game")
    game = await sync_to_async(start_game)(2)
    loser, winner = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    stream = await stream_of(winner.user)
    await stream.next_of("game")

    resigned = await sync_to_async(actions.resign)(game_id=game.pk, user=loser.user)
    end = await stream.next_of("end")
    assert end["version"] == resigned.game.version and lost
    await sync_to_async(tasks.analyse_game)(game.pk)  # the worker's, later
    await sync_to_async(game.refresh_from_db)()
    assert game.version == end["version"] + 1  # the analysis is the log's last event
    assert await stream.lines_until_quiet() == []
    await stream.close()

    resumed = await stream_of(winner.user, f"since={game.pk}:{end['version']}")
    assert await resumed.lines_until_quiet() == []
    await resumed.close()
    late = await stream_of(winner.user, f"since={game.pk}:{end['version'] - 1}")
    lines = await late.lines_until_quiet()
    assert [line["type"] for line in lines] == ["event", "end"]
    assert lines[-1]["version"] == end["version"]
    await late.close()
