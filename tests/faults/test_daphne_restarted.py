"""The daphne process is killed (SIGKILL) in the middle of a game, while two people post moves
over HTTP and one of them has the game's socket open, and started again on the same port.

It shows that no move the server answered 200 is lost (each is in the event log, as that
player's, at the version its answer showed); a move whose request was cut off may or may not
have been made, and the player simply plans again from the game as it is; the page's socket,
reconnected with ?v=<the version it shows>, is resynced to the current version and then gets the
pushes again; the Celery worker and the sweep play the bot and the forced takes throughout; and
the game ends with its log replaying to its final state, its results, rating and analysis.
"""

import time

import pytest
from django.utils import timezone

from games import rules
from games.models import Event, Game
from infra.services import free_port

from .checks import check_accepted_moves, check_game, check_ratings
from .clients import Browser, LiveSocket, Mover, while_playing
from .conftest import Beat, play_on_to_the_end, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]


def version(game_id) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=game_id)


def test_a_daphne_killed_mid_game_loses_no_accepted_move(stack, table):
    port = free_port()
    stack.worker()
    server = stack.daphne(port)
    game, users = table()
    people = {seat: user for seat, user in users.items() if not user.bot_level}
    browsers = {seat: Browser(user, port) for seat, user in people.items()}
    watcher = min(people)
    socket = LiveSocket(browsers[watcher], game.pk, game.version)
    movers = [Mover(browsers[seat], game.pk, seat) for seat in people]
    try:
        with Beat():
            assert socket.connect() == 1
            wait_until(lambda: socket.received(1), 10, "the socket's first answer")
            for mover in movers:
                mover.start()
            wait_until(
                while_playing(
                    movers, lambda: version(game.pk) >= 20 and socket.received(1, kinds=("push",))
                ),
                60,
                "twenty moves, and a push on the socket",
            )

            # Kill daphne while a request is in flight, and start it again on the same port (once
            # more if the request in flight was answered just before the kill).
            for _ in range(3):
                wait_until(lambda: any(m.in_flight for m in movers), 10, "a move in flight", 0.001)
                killed_at, killed_on = time.monotonic(), timezone.now()
                server.kill()
                for mover in movers:
                    mover.tag = "after the kill"
                wait_until(socket.closed.is_set, 10, "the socket noticing the server is gone")
                shown = socket.shown
                server = stack.daphne(port)
                cut_off = [
                    answer
                    for mover in movers
                    for answer in mover.answers
                    if answer.status is None and answer.sent_at <= killed_at
                ]
                if cut_off:
                    break
            assert cut_off, "no request was in flight when daphne was killed"
            wait_until(
                while_playing(
                    movers,
                    lambda: (
                        version(game.pk) > shown
                        and any(m.accepted("after the kill") for m in movers)
                    ),
                ),
                30,
                "moves accepted by the new daphne",
            )
            # The page reconnects with the version it shows, and is brought up to date. (The
            # people wait meanwhile, so that the game is still on when it is back.)
            for mover in movers:
                mover.pause()
            assert Game.objects.get(pk=game.pk).is_playing
            before = version(game.pk)
            assert socket.connect() == 2
            first = wait_until(lambda: socket.received(2), 10, "an answer to the reconnection")[0]
            assert first["type"] == "resync", first
            assert before <= first["version"] <= version(game.pk)
            for mover in movers:
                mover.resume()
            # ... and gets the pushes again; the game goes on to its end.
            play_on_to_the_end(game, movers, socket, 2, after=first["version"])
        final = version(game.pk)
        wait_until(lambda: socket.shown == final, 10, "the page showing the final version")
    finally:
        for mover in movers:
            mover.stop()
        socket.close()

    check_game(game.pk)
    answers = [answer for mover in movers for answer in mover.answers]
    users_by_seat = {seat: user.pk for seat, user in users.items()}
    checked = check_accepted_moves(game.pk, answers, users_by_seat)
    check_ratings(users_by_seat.values())
    assert server.alive()
    # A request cut off by the kill may or may not have been made (by the killed daphne, before
    # the kill): either way the log replays.
    made = sum(
        any(
            rules.action_from_json(event.action) == rules.action_from_json(a.action)
            for event in Event.objects.filter(
                game=game, seat=a.seat, number__gt=a.seen, created_at__lte=killed_on
            )
        )
        for a in cut_off
    )
    unanswered = sum(a.status is None for a in answers)
    print(
        f"\n{checked} accepted moves, all in the log; {len(cut_off)} cut off by the kill "
        f"({made} made all the same); {unanswered - len(cut_off)} refused while daphne was down; "
        f"{sum(a.status == 409 for a in answers)} refused as stale"
    )
