"""The game socket against whatever a client may send (hypothesis), in the style of tests/live:
Channels' WebsocketCommunicator against the real Redis channel layer.

The socket accepts two messages from a page, ``sync`` and ``ping``; anything else (garbage,
JSON of the wrong shape, wrong types, huge or binary frames, moves) is ignored, a bad version in
its address is treated as "no version", and a path that names no game is closed with 44xx. The
socket never changes a game, and after any junk it still answers a genuine sync.
"""

import json
import re
from urllib.parse import quote

import pytest
from asgiref.sync import sync_to_async
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.live.conftest import closed_with, connect, game_path, login, messages, next_of

from .conftest import state_of
from .junk import BIG, NASTY, ints, plain_text

pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("live_layer", "closes_thread_connections"),
]

SOCKET_FUZZ = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Messages a page may receive; no other type, and never anything that names an error inside.
KNOWN_TYPES = {"push", "resync", "synced", "presence", "user"}
ASCII_NUMBER = re.compile("[0-9]+")  # a version some page may show


# --- what a client may send ----------------------------------------------------------------

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        ints,
        st.floats(allow_nan=False, allow_infinity=False),
        plain_text,
        st.sampled_from(NASTY[:-10]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(plain_text, children, max_size=3)
    ),
    max_leaves=8,
)
# A version no page can show: negative, past 32 bits, a bool, a fraction, text, a list...
bad_versions = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2**31),
    st.booleans(),
    st.floats(),
    st.none(),
    st.sampled_from(["", "²", "٣", "1e3", "-1", " 7", "0x1", "9" * 11, "seven"]),
    st.lists(st.integers(0, 5), max_size=2),
    st.dictionaries(plain_text, st.integers(), max_size=2),
)
junk_frames = st.one_of(
    # Garbage text, and JSON that is not an object.
    plain_text.map(lambda text: ("text", text)),
    st.sampled_from(["", "{", "nul\x00", '{"type": "sync"', "[1, 2]", "null", "1e999"]).map(
        lambda text: ("text", text)
    ),
    json_values.map(lambda value: ("text", json.dumps(value))),
    # Objects with a type the socket does not take: including every move of the game.
    st.fixed_dictionaries(
        {
            "type": st.one_of(
                st.sampled_from(
                    ["draft", "confirm_draft", "undo_draft", "place", "clear", "finish", "act"]
                ),
                st.sampled_from(["SYNC", "sync ", "Ping", "push", "resync", "presence"]),
                json_values,
            )
        },
        optional={"tile_id": ints, "space": ints, "version": ints, "seat": ints},
    ).map(lambda message: ("text", json.dumps(message))),
    # A sync with a version no page can show.
    bad_versions.map(lambda v: ("text", json.dumps({"type": "sync", "version": v}))),
    # Huge frames, text and binary.
    st.sampled_from(["x" * BIG, json.dumps({"type": "ping", "pad": "x" * BIG})]).map(
        lambda text: ("text", text)
    ),
    st.binary(max_size=64).map(lambda data: ("bytes", data)),
    st.just(("bytes", b"\x00" * BIG)),
)


async def send(socket, frame):
    kind, payload = frame  # sent as the server gets it (the communicator refuses empty frames)
    await socket.send_input({"type": "websocket.receive", kind: payload})


async def a_started_game(start_game):
    game = await sync_to_async(start_game)(2)
    player = await sync_to_async(lambda: game.seats.get(number=0).user)()
    return game, await sync_to_async(login)(player)


def assert_only_known(received):
    for message in received:
        assert message["type"] in KNOWN_TYPES, message


# --- the tests -----------------------------------------------------------------------------


@SOCKET_FUZZ
@given(frames=st.lists(junk_frames, min_size=1, max_size=8))
@example(frames=[("text", json.dumps({"type": "sync", "version": "²"}))])
@example(frames=[("text", ""), ("bytes", b""), ("text", "\x00")])
async def test_junk_from_a_page_is_ignored_and_the_socket_still_answers_a_sync(start_game, frames):
    game, client = await a_started_game(start_game)
    before = await sync_to_async(state_of)(game)
    socket = await connect(game_path(game, game.version), client)
    assert_only_known(await messages(socket, timeout=0.1))

    for frame in frames:
        await send(socket, frame)
    await socket.send_json_to({"type": "sync", "version": game.version})

    received = []
    while not received or received[-1]["type"] != "synced":
        received.append(await socket.receive_json_from(timeout=3))
    assert_only_known(received)
    assert received[-1]["version"] == game.version
    assert await sync_to_async(state_of)(game) == before
    await socket.disconnect()


@SOCKET_FUZZ
@given(
    version=st.one_of(
        st.sampled_from(NASTY).filter(lambda text: not ASCII_NUMBER.fullmatch(text)),
        plain_text.filter(lambda text: not ASCII_NUMBER.fullmatch(text)),
        st.integers(max_value=-1).map(str),
        st.integers(min_value=2**31).map(str),
    ),
    raw=st.booleans(),
)
@example(version="²", raw=False)
@example(version="٣", raw=True)
@example(version="9" * 5000, raw=False)
async def test_a_bad_version_in_the_address_counts_as_none_and_brings_the_whole_game(
    start_game, version, raw
):
    """``?v=`` is what the page shows; one no page can show gets the whole game."""
    game, client = await a_started_game(start_game)
    path = game_path(game)
    if raw:  # as it comes, not percent-encoded (but for what would end the parameter)
        query = "".join(quote(c) if c in "#&%+= " else c for c in version)
        path = f"{path}?v={query}"
    else:
        path = f"{path}?v={quote(version, safe='')}&page={quote(version, safe='')}"
    socket = await connect(path, client)
    assert socket.connected

    resync = await next_of(socket, "resync")

    assert resync["version"] == game.version and 'id="game"' in resync["html"]
    await socket.send_json_to({"type": "sync", "version": game.version})
    assert (await next_of(socket, "synced"))["version"] == game.version
    await socket.disconnect()


async def test_moves_sent_over_the_socket_change_nothing(start_game):
    """The socket only reads: a move sent on it is ignored, even the one that is due."""
    game, client = await a_started_game(start_game)
    tile = game.pool["columns"][-1][0]
    before = await sync_to_async(state_of)(game)
    socket = await connect(game_path(game, game.version), client)
    await messages(socket)

    for move in [
        {"type": "draft", "tile_id": tile, "version": game.version},
        {"type": "act", "action": {"type": "draft", "tile_id": tile}, "version": game.version},
        {"type": "confirm_draft", "version": game.version},
        {"type": "game.changed", "game": game.pk, "version": game.version + 1, "seats": [0]},
        {"type": "user.notify", "badge": "<b>99</b>", "notice": "<script>alert(1)</script>"},
    ]:
        await socket.send_json_to(move)
    await socket.send_json_to({"type": "sync", "version": game.version})

    received = []
    while not received or received[-1]["type"] != "synced":
        received.append(await socket.receive_json_from(timeout=3))
    assert all(message["type"] != "push" for message in received)  # nothing was played
    assert "alert(1)" not in json.dumps(received)  # nor echoed
    assert await sync_to_async(state_of)(game) == before
    await socket.disconnect()


async def test_junk_on_a_players_own_socket_and_from_anonymous_pages_is_ignored(start_game, caplog):
    game, client = await a_started_game(start_game)
    caplog.set_level("INFO", logger="games.live.consumers")
    own = await connect("/ws/live/", client)
    anonymous = await connect(game_path(game, game.version))
    for socket in (own, anonymous):
        await messages(socket, timeout=0.1)
        for frame in [("text", "x" * BIG), ("bytes", b"\xff" * 10), ("text", '{"type": 1}')]:
            await send(socket, frame)
        await socket.send_json_to({"type": "ping"})
    await anonymous.send_json_to({"type": "sync", "version": game.version})

    assert (await next_of(anonymous, "synced"))["version"] == game.version
    assert await own.receive_nothing(timeout=0.3)  # no game: a sync or a ping has no answer
    assert caplog.text.count("live: ignored") == 6
    for socket in (own, anonymous):
        await socket.disconnect()


async def test_a_socket_for_no_game_or_for_no_address_a_page_opens_is_closed_with_4404(players):
    """Not a server error: an address that names no game, or nothing at all, is answered like a
    game that does not exist (before, the router raised and the server closed with 1011)."""
    client = await sync_to_async(login)(players[0])
    for path in [
        "/ws/games/999999999/",
        f"/ws/games/{2**64}/",
        f"/ws/games/{'9' * 5000}/",
        "/ws/games/-1/",
        "/ws/games/abc/",
        "/ws/games/1/x/",
        "/ws/",
        "/ws/live/%00/",
        "/x",
    ]:
        socket = await connect(path, client)
        assert socket.connected, path
        assert await closed_with(socket) == 4404, path
