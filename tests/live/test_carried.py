"""A version carried in its push (games/drawing/cache/carried.py) that a daphne process cannot
use is read instead, and never ends the socket that received it."""

import asyncio
import logging

import pytest

from games import move_log
from games.drawing import cache, updates
from games.drawing.cache import versions
from games.live import push_drawing
from games.live import pushes as live
from games.play import actions
from tests.games.playing import next_move

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def moved(start_game, monkeypatch):
    """A game, one move made in a process without sockets, its event as sent, and the viewer
    who did not make it."""
    game = start_game(2)
    sent = []
    monkeypatch.setattr(live, "send", sent.extend)
    mover, action = next_move(game)
    seats = list(game.seats.select_related("user").order_by("number"))
    actions.play(game_id=game.pk, user=seats[mover].user, action=action, seen_version=game.version)
    (event,) = [event for _, event in sent if event["type"] == "game.changed"]
    assert event["made"]  # the Redis channel layer: the version travels with its event
    versions._snapshots.clear()
    monkeypatch.setattr(versions, "_holds_sockets", True)
    return event, seats[1 - mover].user


def test_a_version_that_cannot_be_unpacked_is_read_instead(moved, caplog):
    event, viewer = moved
    read, _ = updates.draw_change(event, viewer, {})
    cache.forget()

    with caplog.at_level(logging.WARNING, logger="games.drawing.cache.carried"):
        cache.keep_carried({**event, "made": b"not what pack wrote"})
    assert "cannot unpack a carried version" in caplog.text
    assert (event["game"], event["version"]) not in versions._snapshots
    assert updates.draw_change(event, viewer, {})[0] == read


def test_a_log_that_cannot_take_the_events_leaves_the_socket_alone(moved, monkeypatch, caplog):
    event, viewer = moved

    def broken(*args):
        raise ValueError("a log from another release")

    monkeypatch.setattr(move_log, "keep_events", broken)
    with caplog.at_level(logging.ERROR, logger="games.drawing.cache.versions"):
        cache.keep_carried(event)  # the consumer's handler goes on
    assert "cannot extend the log" in caplog.text
    assert (event["game"], event["version"]) in versions._snapshots
    html, _ = updates.draw_change(event, viewer, {})
    assert 'id="seat-' in html


def test_a_carried_push_is_drawn_on_the_event_loop_without_a_thread(moved, monkeypatch):
    # Issue 36: a thread hop per socket per push cost about a sixth of daphne's CPU. A version
    # this process holds, whose log it has, needs no query: the socket draws it where it runs.
    event, viewer = moved
    expected, _ = updates.draw_change(event, viewer, {})  # the log is this process's now
    cache.forget()
    cache.keep_carried(event)
    assert cache.held(event["game"], event["version"])

    def no_thread(draw):
        raise AssertionError(f"{draw.__name__} went to a database thread")

    monkeypatch.setattr(push_drawing, "database_sync_to_async", no_thread)
    drawn = asyncio.run(push_drawing.drawn(event, updates.draw_change, event, viewer, {}))
    assert drawn[0] == expected


def test_a_carried_push_that_needs_a_query_is_drawn_in_a_thread(moved, monkeypatch):
    # The process has no log of the game: it must read the earlier events, which Django refuses
    # on an event loop. The push still comes, drawn in a database thread, the same.
    event, viewer = moved
    # As daphne runs (the browser tests' conftest allows queries on a loop for Playwright).
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    expected, _ = updates.draw_change(event, viewer, {})
    cache.forget()
    move_log._logs.clear()
    cache.keep_carried(event)
    threads = []
    real = push_drawing.database_sync_to_async

    def counted(draw):
        threads.append(draw)
        return real(draw)

    monkeypatch.setattr(push_drawing, "database_sync_to_async", counted)
    drawn = asyncio.run(push_drawing.drawn(event, updates.draw_change, event, viewer, {}))
    assert threads == [updates.draw_change]
    assert drawn[0] == expected
