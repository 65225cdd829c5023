"""A move made over HTTP reaches every open page of the game, drawn for each viewer."""

import re
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import presence, rules
from games.drawing import cache, updates
from games.drawing.cache import versions
from games.drawing.cache.looks import compact
from games.live import pushes as live
from games.models import Game
from games.play import actions
from infra import lru
from tests.games.playing import current_state, next_move

from .conftest import apost_move, connect, game_path, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def section(html: str, element_id: str) -> str:
    """The <section> with this id, as drawn in `html`, its templates' line breaks and indentation
    as answers and pushes send them (games/drawing/cache/looks.py `compact`)."""
    match = re.search(rf'<section [^>]*id="{element_id}"', html)
    assert match, f"no section #{element_id}"
    end = html.index("</section>", match.start()) + len("</section>")
    return compact(html[match.start() : end])


async def seated(start_game, count=2):
    game = await sync_to_async(start_game)(count)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = {seat.number: await sync_to_async(login)(seat.user) for seat in seats}
    return game, seats, clients


async def page_of(client, game) -> str:
    response = await sync_to_async(client.get)(reverse("games:game", args=[game.pk]))
    return response.content.decode()


async def test_a_move_over_http_reaches_every_player_drawn_as_their_own_page_draws_it(
    start_game, players
):
    players[2].colour_blind = True  # chloe sees the shapes: her push must carry them
    await sync_to_async(players[2].save)()
    game, seats, clients = await seated(start_game, 3)
    sockets = {n: await connect(game_path(game, game.version), clients[n]) for n in clients}
    for socket in sockets.values():
        await messages(socket)

    mover, action = await sync_to_async(next_move)(game)  # the first draft of the game
    response = await apost_move(clients[mover], game, action.to_json(), game.version)

    assert response.status_code == 200
    pushes = {n: await next_of(socket, "push") for n, socket in sockets.items()}
    for number, push in pushes.items():
        assert push["version"] == game.version + 1
        page = await page_of(clients[number], game)
        assert f'data-version="{game.version + 1}"' in page
        # The pool and the drafter's tray changed: the same markup as this player's page.
        for element in ("pool", f"seat-{mover}"):
            assert section(push["html"], element) == section(page, element)
        assert 'id="game-status"' in push["html"]
        others = [seat.number for seat in seats if seat.number != mover]
        assert all(f'id="seat-{n}"' not in push["html"] for n in others)  # only what changed
    # Viewer-specific: Confirm for the drafter only, interactive tray for its owner only.
    assert "Confirm draft" in pushes[mover]["html"]
    assert all("Confirm draft" not in pushes[n]["html"] for n in pushes if n != mover)
    assert "hx-post" in section(pushes[mover]["html"], f"seat-{mover}")
    assert all(
        "hx-post" not in section(pushes[n]["html"], f"seat-{mover}") for n in pushes if n != mover
    )
    chloe = next(seat.number for seat in seats if seat.user_id == players[2].pk)
    assert 'href="#cb-tile-' in pushes[chloe]["html"]  # the shapes of her page's sprite
    assert all("#cb-" not in pushes[n]["html"] for n in pushes if n != chloe)
    for socket in sockets.values():
        await socket.disconnect()


async def test_spectators_signed_in_or_not_receive_the_move(start_game, players):
    game, _, clients = await seated(start_game, 2)
    watcher = await sync_to_async(login)(players[4])  # esme has no seat
    spectators = [
        await connect(game_path(game, game.version), watcher),
        await connect(game_path(game, game.version)),  # anonymous: the game is public
    ]
    for socket in spectators:
        assert socket.connected
        await messages(socket)

    mover, action = await sync_to_async(next_move)(game)
    await apost_move(clients[mover], game, action.to_json(), game.version)

    for socket in spectators:
        push = await next_of(socket, "push")
        assert push["version"] == game.version + 1
        board = section(push["html"], f"seat-{mover}")
        assert "hx-post" not in board and "Your board" not in board
        await socket.disconnect()


async def test_a_rolled_back_action_pushes_nothing(start_game):
    game, seats, clients = await seated(start_game, 2)
    mover, action = await sync_to_async(next_move)(game)
    watcher = next(n for n in clients if n != mover)
    socket = await connect(game_path(game, game.version), clients[watcher])
    await messages(socket)

    def play_and_roll_back():
        with pytest.raises(RuntimeError), transaction.atomic():
            actions.play(
                game_id=game.pk, user=seats[mover].user, action=action, seen_version=game.version
            )
            raise RuntimeError("something after the move failed")

    await sync_to_async(play_and_roll_back)()

    assert await socket.receive_nothing(timeout=0.5)
    assert await sync_to_async(Game.objects.values_list("version", flat=True).get)(pk=game.pk) == (
        game.version
    )
    await socket.disconnect()


async def test_a_push_leaves_only_after_the_commit(start_game):
    game, seats, clients = await seated(start_game, 2)
    mover, action = await sync_to_async(next_move)(game)
    watcher = next(n for n in clients if n != mover)
    socket = await connect(game_path(game, game.version), clients[watcher])
    await messages(socket)
    before_commit = []

    def play_then_look_before_the_commit():
        with transaction.atomic():
            actions.play(
                game_id=game.pk, user=seats[mover].user, action=action, seen_version=game.version
            )
            # The move is written but not committed: nothing may have left yet.
            before_commit.append(async_to_sync(socket.receive_nothing)(timeout=0.5))

    await sync_to_async(play_then_look_before_the_commit)()

    assert before_commit == [True]
    push = await next_of(socket, "push")
    assert push["version"] == game.version + 1
    await socket.disconnect()


async def test_after_a_lost_push_the_next_one_comes_as_the_whole_game(start_game):
    game, _, clients = await seated(start_game, 2)
    shown = game.version
    socket = await connect(game_path(game, shown), clients[0])
    await messages(socket)
    mover, draft = await sync_to_async(next_move)(game)
    live._paused_until = time.monotonic() + 60  # the push of this move is lost
    await apost_move(clients[mover], game, draft.to_json(), shown)
    live._paused_until = 0.0
    assert await socket.receive_nothing(timeout=0.3)

    mover, action = await sync_to_async(next_move)(game)  # refreshes `game`
    await apost_move(clients[mover], game, action.to_json(), game.version)

    resync = await next_of(socket, "resync")
    assert resync["version"] == shown + 2
    assert f'data-version="{shown + 2}"' in resync["html"]
    await socket.disconnect()


@pytest.mark.slow
async def test_the_end_of_the_game_redraws_every_page_with_the_results(start_game, settings):
    # The post-game analysis runs eagerly in the finishing request here, under the suite's
    # half a second a seat (tests/conftest.py): well short of the 5 s after which the tests'
    # channel layer times out a consumer that hears nothing (the settings' layer does not:
    # tests/faults/test_idle_socket.py).
    game, seats, clients = await seated(start_game, 2)

    def play_until_the_last_finish():
        while True:
            seat, action = next_move(game)
            state = current_state(game)
            if isinstance(action, rules.Finish) and state.finished.count(False) == 1:
                return seat, action
            actions.play(game_id=game.pk, user=seats[seat].user, action=action, seen_version=None)

    last, finish = await sync_to_async(play_until_the_last_finish)()
    await sync_to_async(game.refresh_from_db)()
    spectator = await connect(game_path(game, game.version))
    await messages(spectator)

    await apost_move(clients[last], game, finish.to_json(), game.version)

    resync = await next_of(spectator, "resync", timeout=10)
    # The finish, or already the post-game analysis after it (an eager task here).
    assert resync["version"] in (game.version + 1, game.version + 2)
    assert 'id="game"' in resync["html"] and "Results" in resync["html"]
    await spectator.disconnect()


async def test_the_page_that_made_a_move_gets_it_in_the_answer_and_its_other_tabs_by_push(
    start_game,
):
    game, _, clients = await seated(start_game, 2)
    mover, action = await sync_to_async(next_move)(game)
    path = game_path(game, game.version)
    moving_tab = await connect(f"{path}&page=movingtab01", clients[mover])
    other_tab = await connect(f"{path}&page=othertab001", clients[mover])
    for socket in (moving_tab, other_tab):
        await messages(socket)

    response = await sync_to_async(clients[mover].post)(
        reverse("games:act", args=[game.pk]),
        {**action.to_json(), "version": game.version},
        HTTP_HX_REQUEST="true",
        HTTP_X_PAGE_VERSION=str(game.version),
        HTTP_X_PAGE_ID="movingtab01",
    )

    assert response.status_code == 200
    assert response["X-Game-Version"] == str(game.version + 1)
    assert (await next_of(other_tab, "push"))["version"] == game.version + 1
    assert [m for m in await messages(moving_tab) if m["type"] == "push"] == []
    # The tab is still counted at the new version: the next move (the confirmation, by the
    # same player from the other tab) comes to it as an ordinary push, not as a gap.
    await apost_move(clients[mover], game, rules.ConfirmDraft().to_json(), game.version + 1)
    push = await next_of(moving_tab, "push")
    assert push["version"] == game.version + 2
    for socket in (moving_tab, other_tab):
        await socket.disconnect()


async def test_a_push_drawn_where_the_move_was_made_reads_nothing_and_is_the_same(
    start_game, monkeypatch
):
    """Where daphne answers the moves too, the push is drawn from the game as the move's
    transaction left it; a process that only answers moves (gunicorn) keeps nothing of it."""
    game, seats, _ = await seated(start_game, 2)
    mover, action = await sync_to_async(next_move)(game)
    viewer = next(seat.user for seat in seats if seat.number != mover)

    def move_then_draw():
        updates.draw_game(game.pk, viewer)  # the page drawn before: this process knows its log
        played = actions.play(
            game_id=game.pk, user=seats[mover].user, action=action, seen_version=game.version
        )
        event = played.change.event()
        with CaptureQueriesContext(connection) as captured:
            here, _ = updates.draw_change(event, viewer, {})
        cache.forget()
        elsewhere, _ = updates.draw_change(event, viewer, {})  # another process reads the game
        return [q["sql"] for q in captured.captured_queries], here, elsewhere

    monkeypatch.setattr(versions, "_holds_sockets", True)
    queries, here, elsewhere = await sync_to_async(move_then_draw)()
    assert queries == [], queries
    assert here == elsewhere and 'id="pool" ' in here

    monkeypatch.setattr(versions, "_holds_sockets", False)
    versions._snapshots.clear()
    mover, action = await sync_to_async(next_move)(game)
    await sync_to_async(actions.play)(
        game_id=game.pk, user=seats[mover].user, action=action, seen_version=game.version
    )
    assert versions._snapshots.items == {}


async def test_a_push_drawn_in_another_process_from_the_version_it_carries_reads_nothing(
    start_game, monkeypatch
):
    """A move made in a process without sockets (gunicorn) carries its version in the event;
    a daphne process keeps every carried version, drawn there or not, and draws the next push
    without a query or a presence read, the same as one drawn from the database. No password
    hash travels."""
    game, seats, _ = await seated(start_game, 2)
    sent = []
    monkeypatch.setattr(live, "send", sent.extend)

    def two_moves_then_draw():
        mover, _ = next_move(game)
        viewer = next(seat.user for seat in seats if seat.number != mover)
        updates.draw_game(game.pk, viewer)  # the viewer's page was drawn here: its log too
        events = []
        while len(events) < 2 or not events[-1]["logged"]:  # up to a confirmed draft
            mover, action = next_move(game)
            version = Game.objects.get(pk=game.pk).version
            actions.play(
                game_id=game.pk, user=seats[mover].user, action=action, seen_version=version
            )
            events = [event for group, event in sent if event["type"] == "game.changed"]
        cache.forget()
        monkeypatch.setattr(versions, "_holds_sockets", True)
        for event in events:  # all but the last went to the mover's own page: not drawn here
            cache.keep_carried(event)
        watched, real_watching = [], presence.watching
        monkeypatch.setattr(presence, "watching", lambda *args: watched.append(args) or set())
        # The version before the confirmation (no email: who is watching was read for the push
        # alone) and the confirmation (the move log goes on from versions not drawn here).
        with CaptureQueriesContext(connection) as captured:
            carried = [updates.draw_change(event, viewer, {})[0] for event in events[-2:]]
        monkeypatch.setattr(presence, "watching", real_watching)
        cache.forget()
        lru.clear_all()
        read = updates.draw_change(events[-1], viewer, {})[0]  # the newest: the database's
        return [q["sql"] for q in captured.captured_queries] + watched, carried, read, events

    reads, carried, read, events = await sync_to_async(two_moves_then_draw)()
    assert reads == [], reads  # neither the database nor who is watching
    assert carried[-1] == read
    assert 'id="seat-' in carried[0] and "move-log-turns" in carried[1]
    hashes = [seat.user.password.encode() for seat in seats]
    for event in events:
        assert not any(digest in event["made"] for digest in hashes)
        assert len(event["made"]) < 20_000
