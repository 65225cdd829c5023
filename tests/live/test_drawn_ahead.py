"""A player's push is drawn by the process that made the move (games/drawing/change.py): their
page's socket only picks from it by what the page shows, and gets the very push it would have
drawn itself; a socket that cannot use it (another language, a page showing another look of a
part) draws its own."""

from datetime import UTC, datetime

import pytest
import time_machine
from asgiref.sync import sync_to_async
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from games import presence
from games.drawing import cache, updates
from games.drawing import change as drawings
from games.drawing.cache import versions
from games.drawing.view import as_seen_by, game_view
from games.live import pushes as live
from games.play import actions
from tests.games.playing import next_move

from .conftest import connect, game_path, login, messages, next_of

PAGE = "drawnaheadpage1"


def facts_of(user, language=settings.LANGUAGE_CODE) -> tuple:
    _, colour_blind, zone = updates.watcher_facts(user)
    return (language, zone, colour_blind)


@pytest.fixture
def sent(monkeypatch) -> list:
    """What the moves send to the channel layer, kept here instead."""
    kept: list = []
    monkeypatch.setattr(live, "send", kept.extend)
    return kept


def watched(start_game, count, watching=None):
    """A started game of `count` players, the first `watching` of them (all by default) with its
    page open; the game and its seats in order."""
    game = start_game(count)
    seats = list(game.seats.select_related("user").order_by("number"))
    for seat in seats[:watching]:
        presence.arrive(game.pk, seat.user_id, f"page-{seat.number}")
    return game, seats


def play_one(game, seats, sent) -> list[dict]:
    """The next sensible move, made by its player's page; the ``game.changed`` events sent, its
    own and those of what it set off (a forced take)."""
    mover, action = next_move(game)
    sent.clear()
    actions.play(
        game_id=game.pk,
        user=seats[mover].user,
        action=action,
        seen_version=game.version,
        answered_page=PAGE,
    )
    game.refresh_from_db()
    return [event for _, event in sent if event["type"] == "game.changed"]


@pytest.mark.django_db(transaction=True)
def test_each_waiting_player_s_push_drawn_ahead_is_the_one_their_socket_would_draw(
    start_game, players, sent, monkeypatch
):
    # Every player's page open, in three ways of seeing: colour-blind shapes, another time zone,
    # German; each page follows the pushes as a socket does (what it shows: `shown`).
    players[1].colour_blind = True
    players[2].time_zone, players[2].language = "Asia/Tokyo", "de"
    for player in players[1:3]:
        player.save()
    game, seats = watched(start_game, 3)
    # Each version kept as its move left it, as where sockets are: drawn after the forced take
    # a move set off, the move's own version is still itself.
    monkeypatch.setattr(versions, "_holds_sockets", True)
    shown = {seat.user_id: {} for seat in seats}
    picked, whole = 0, {seat.user_id: 0 for seat in seats}

    events = []
    while len(events) < 40:
        events += play_one(game, seats, sent)
    for event in events:
        if event["ended"]:
            break
        waiting = [seat.user for seat in seats if seat.user_id != event["mover"]]
        by_the_server = event["mover"] is None  # a forced take: its pages' sockets draw it
        assert (
            "drawn" not in event
            if by_the_server
            else (sorted(drawings.unpack(event["drawn"])) == sorted(user.pk for user in waiting))
        )
        for user in waiting:
            language = user.language or settings.LANGUAGE_CODE
            with translation.override(language):
                expected = updates.draw_change(event, user, shown[user.pk])
            ahead = updates.drawn_ahead(event, user.pk, facts_of(user, language))
            assert (ahead is None) == by_the_server
            if ahead is not None:
                got = ahead.pick(shown[user.pk])
                if got is None:  # the page needs a part whole: the socket draws it
                    whole[user.pk] += 1
                else:
                    picked += 1
                    assert got == expected
            _, now = expected
            for part, looks in now.items():
                if looks is None:
                    shown[user.pk].pop(part, None)
                else:
                    shown[user.pk][part] = looks

    assert picked >= 60  # 40 versions, two or three pages each
    # Only while a page had not yet been sent the pool or another board, and so showed none.
    assert all(count <= 3 for count in whole.values()), whole


@pytest.mark.django_db(transaction=True)
def test_a_push_drawn_for_another_language_or_setting_is_not_used(start_game, sent):
    game, seats = watched(start_game, 2)
    event = play_one(game, seats, sent)[0]
    other = next(seat.user for seat in seats if seat.user_id != event["mover"])

    assert updates.drawn_ahead(event, other.pk, facts_of(other)) is not None
    assert updates.drawn_ahead(event, other.pk, facts_of(other, "fr")) is None
    language, zone, colour_blind = facts_of(other)
    assert updates.drawn_ahead(event, other.pk, (language, zone, not colour_blind)) is None
    assert updates.drawn_ahead(event, other.pk, (language, "Asia/Tokyo", colour_blind)) is None
    assert updates.drawn_ahead(event, event["mover"], facts_of(other)) is None
    junk = {**event, "drawn": b"not what pack wrote"}
    assert updates.drawn_ahead(junk, other.pk, facts_of(other)) is None


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_player_s_socket_sends_the_push_drawn_ahead_without_drawing_it(
    start_game, monkeypatch
):
    game = await sync_to_async(start_game)(2)
    seats = await sync_to_async(
        lambda: list(game.seats.select_related("user").order_by("number"))
    )()
    clients = {seat.number: await sync_to_async(login)(seat.user) for seat in seats}
    sockets = {n: await connect(game_path(game, game.version), clients[n]) for n in clients}
    for socket in sockets.values():
        await messages(socket)
    drawn_here = []  # (whose, which version) each push the sockets drew themselves
    real = updates.draw_change

    def counted(event, viewer, shown):
        drawn_here.append((viewer.pk, event["version"]))
        return real(event, viewer, shown)

    monkeypatch.setattr(updates, "draw_change", counted)

    drawn_by_socket = picked = 0
    for _ in range(8):
        mover, action = await sync_to_async(next_move)(game)
        played = await sync_to_async(actions.play)(
            game_id=game.pk,
            user=seats[mover].user,
            action=action,
            seen_version=game.version,
            answered_page=PAGE,  # another page of the mover's: these sockets all get the push
        )
        await sync_to_async(game.refresh_from_db)()
        # Every page gets the move, and what it set off (a forced take: drawn by the sockets).
        for socket in sockets.values():
            first = await next_of(socket, "push")
            later = [m for m in await messages(socket) if m["type"] == "push"]
            assert [first, *later][-1]["version"] == game.version
        waiting = next(seat for seat in seats if seat.number != mover)
        if (waiting.user_id, played.game.version) in drawn_here:
            drawn_by_socket += 1
        else:
            picked += 1

    # Only a page's first push is drawn by its socket: the page had not said what it shows.
    assert drawn_by_socket <= 2 and picked >= 6
    for socket in sockets.values():
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
def test_the_mover_s_answer_drawn_from_the_view_of_the_pushes_is_the_one_drawn_for_them(
    start_game, sent
):
    # The move's answer is drawn from the view its pushes drew for no one (games/play/views.py
    # `_view_of_the_move`): the very game the mover would see from a view drawn for them.
    with time_machine.travel(datetime(2026, 3, 1, 12, tzinfo=UTC), tick=False):
        game, seats = watched(start_game, 3)
        for _ in range(30):
            mover, action = next_move(game)
            user = seats[mover].user
            played = actions.play(
                game_id=game.pk,
                user=user,
                action=action,
                seen_version=game.version,
                answered_page=PAGE,
            )
            game.refresh_from_db()
            found = cache.seen(played.game.pk, played.game.version)
            assert found is not None
            fresh = game_view(
                played.game,
                user,
                seats=played.seats,
                known_events=played.events,
                online=played.online,
            )
            assert render_to_string("games/partials/game.html", {"view": fresh, "user": user}) == (
                render_to_string(
                    "games/partials/game.html", {"view": as_seen_by(found, user), "user": user}
                )
            )


@pytest.mark.django_db(transaction=True)
def test_pushes_are_drawn_ahead_for_two_players_watching_and_not_for_three(start_game, sent):
    # A daphne process draws three players' pushes cheaper than the move's process: it shares
    # the version's view and what they have in common among its sockets (games/drawing/updates.py
    # MOST_DRAWN_AHEAD).
    game, seats = watched(start_game, 5, watching=3)

    for _ in range(8):
        event = play_one(game, seats, sent)[0]
        watching = {seat.user_id for seat in seats[:3]} - {event["mover"]}
        if len(watching) <= 2:
            assert sorted(drawings.unpack(event["drawn"])) == sorted(watching)
        else:
            assert "drawn" not in event

    presence.arrive(game.pk, seats[3].user_id, "page-3")
    event = play_one(game, seats, sent)[0]
    assert "drawn" not in event  # three watch besides the mover, whoever moved
