"""People watching a game are drawn once per version, language and kind of viewer, not once per
socket; each still gets exactly the markup their own page shows (issue 36)."""

import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from games.drawing import updates
from games.drawing.cache.looks import compact
from tests.games.playing import next_move

from .conftest import apost_move, connect, game_path, login, messages, next_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

WATCHERS = 4
DOTS = re.compile(r'<span id="presence-[0-9]"[^>]*></span>', re.S)


def section(html: str, element_id: str) -> str:
    match = re.search(rf'<section [^>]*id="{element_id}"', html)
    assert match, f"no section #{element_id}"
    end = html.index("</section>", match.start()) + len("</section>")
    return compact(html[match.start() : end])


async def test_watchers_are_drawn_once_a_version_each_as_their_own_page_draws_it(
    start_game, make_player, monkeypatch
):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = {seat.number: await sync_to_async(login)(seat.user) for seat in seats}
    mover, action = await sync_to_async(next_move)(game)  # the first draft of the game
    watchers = [await sync_to_async(make_player)(f"watcher{n}") for n in range(WATCHERS)]
    shapes = await sync_to_async(make_player)("shapes")  # a watcher who sees colour-blind shapes
    shapes.colour_blind = True
    await sync_to_async(shapes.save)()
    watchers.append(shapes)
    watching = [await sync_to_async(login)(player) for player in watchers]
    sockets = [await connect(game_path(game, game.version), client) for client in watching]
    other = 1 - mover  # the other player, whose page draws its own
    sockets.append(await connect(game_path(game, game.version), clients[other]))
    for socket in sockets:
        await messages(socket)
    drawn_for = []
    real = updates.draw_change
    monkeypatch.setattr(
        updates, "draw_change", lambda *args: drawn_for.append(args[1].pk) or real(*args)
    )

    response = await apost_move(clients[mover], game, action.to_json(), game.version)

    assert response.status_code == 200
    pushes = [await next_of(socket, "push") for socket in sockets]
    assert {push["version"] for push in pushes} == {game.version + 1}
    # One drawing for the watchers who see the same, one for the colour-blind one, one for the
    # seated player: not one a socket.
    assert len([pk for pk in drawn_for if pk in {player.pk for player in watchers[:-1]}]) == 1
    assert drawn_for.count(shapes.pk) == 1
    assert drawn_for.count(seats[other].user_id) == 1
    # The same text for every watcher but the online dots, which each socket keeps as it knows them.
    assert len({DOTS.sub("", push["html"]) for push in pushes[:WATCHERS]}) == 1
    assert 'href="#cb-tile-' in pushes[WATCHERS]["html"]
    assert 'href="#cb-tile-' not in pushes[0]["html"]
    # And it is each watcher's page's own markup (the page drawn at the new version).
    for client, push in zip(watching, pushes, strict=False):
        page = await sync_to_async(client.get)(reverse("games:game", args=[game.pk]))
        for element in ("pool", f"seat-{mover}"):
            assert section(push["html"], element) == section(page.content.decode(), element)
    for socket in sockets:
        await socket.disconnect()


async def test_watchers_reading_other_languages_each_get_their_own(start_game, make_player):
    # Sockets of one process take a push one after the other, each in its watcher's language
    # (set once for the socket's task when it connects, kept across its database calls: issue 36).
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(lambda: list(game.seats.select_related("user")))()
    clients = {seat.number: await sync_to_async(login)(seat.user) for seat in seats}
    mover, action = await sync_to_async(next_move)(game)
    readers = {}
    for language in ("en-gb", "de", "en-gb", "fr"):
        player = await sync_to_async(make_player)(f"reader{len(readers)}")
        player.language = language
        await sync_to_async(player.save)()
        readers[player.pk] = (language, await sync_to_async(login)(player))
    path = game_path(game, game.version)
    sockets = [await connect(path, client) for _, client in readers.values()]
    for socket in sockets:
        await messages(socket)

    response = await apost_move(clients[mover], game, action.to_json(), game.version)

    assert response.status_code == 200
    pushes = [(await next_of(socket, "push"))["html"] for socket in sockets]
    for (language, client), push in zip(readers.values(), pushes, strict=True):
        page = await sync_to_async(client.get)(reverse("games:game", args=[game.pk]))
        assert f'lang="{language}"' in page.content.decode()
        assert section(push, "pool") == section(page.content.decode(), "pool")
    assert pushes[0] == pushes[2] and len({pushes[0], pushes[1], pushes[3]}) == 3
    for socket in sockets:
        await socket.disconnect()
