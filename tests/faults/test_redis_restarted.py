"""Redis is stopped in the middle of a game and a new, empty one started on the same port, while
two people post moves over HTTP to daphne, one of them has the game's socket open, and a Celery
worker plays the bot.

It shows that moves over HTTP go on being accepted while Redis is away (the live pushes are
skipped, the tasks they would queue are lost); that the page's socket is told to come back later
(4503) while Redis is away, and when it reconnects after the restart with ?v=<the version it
shows> it is resynced to the current version and gets the pushes again; that the worker
reconnects to the new broker and the sweep queues again the work that was lost with the old one
(the bot's move, forced takes), so the bot plays on; and that the game ends with its log
replaying to its final state, its results, rating and analysis, every accepted move in its log.
"""

import time

import pytest
from django.db.models import Q
from django.utils import timezone

from games import rules
from games.models import Event, Game
from games.state_store import load_state, read_game
from infra.services import free_port

from .checks import check_accepted_moves, check_game, check_ratings
from .clients import Browser, LiveSocket, Mover, while_playing
from .conftest import Beat, describe, play_on_to_the_end, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]

LAYER_DOWN = 4503  # games/live/consumers.py: the channel layer is unreachable, come back later


def version(game_id) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=game_id)


def test_play_goes_on_through_a_redis_restart(stack, fault_redis, table):
    port = free_port()
    worker = stack.worker()
    stack.daphne(port)
    game, users = table()
    people = {seat: user for seat, user in users.items() if not user.bot_level}
    bot = next(user for user in users.values() if user.bot_level)
    browsers = {seat: Browser(user, port) for seat, user in people.items()}
    watcher = min(people)
    socket = LiveSocket(browsers[watcher], game.pk, game.version)
    movers = [Mover(browsers[seat], game.pk, seat) for seat in people]

    def a_persons_turn_begins():
        """A person's turn to draft has begun, and not with a forced take (the server's)."""
        current, seats = read_game(game.pk)
        state = load_state(current, seats)
        return (
            state.phase == rules.DRAFTING
            and state.current in people
            and state.pending is None
            and state.forced_action() is None
        )

    try:
        with Beat() as beat:
            assert socket.connect() == 1
            wait_until(lambda: socket.received(1), 10, "the socket's first answer")
            for mover in movers:
                mover.start()
            wait_until(
                while_playing(
                    movers, lambda: version(game.pk) >= 10 and socket.received(1, kinds=("push",))
                ),
                60,
                "ten moves, and a push on the socket",
            )

            # A task is running when Redis goes away (its message not acknowledged yet).
            stack.hold("before", "infra.send_email")
            running = wait_until(
                while_playing(movers, lambda: stack.held("before", "infra.send_email")),
                30,
                "an email task running",
            )

            # Redis goes away as a person's turn begins, so that they have moves to make.
            deadline = time.monotonic() + 30
            while True:
                assert time.monotonic() < deadline, "no person's turn began"
                wait_until(a_persons_turn_begins, 30, "a person's turn beginning", 0.005)
                for mover in movers:
                    mover.pause()
                if a_persons_turn_begins():
                    break
                for mover in movers:
                    mover.resume()
            fault_redis.stop()
            for mover in movers:
                mover.tag = "redis down"
                mover.resume()

            # The moves go on over HTTP; the open socket is dropped. Once the game waits for the
            # server (the bot's move, a forced take) the sweep tries to queue that work, and
            # cannot: it is lost with the old Redis. The worker has lost its broker.
            wait_until(
                while_playing(
                    movers,
                    lambda: (
                        sum(len(m.accepted("redis down")) for m in movers) >= 2
                        and beat.failures >= 1
                        and "Connection to broker lost" in worker.log()
                    ),
                ),
                30,
                "moves accepted, and a sweep failing, while Redis is down",
                explain=lambda: (
                    f"accepted: {[len(m.accepted('redis down')) for m in movers]}, "
                    f"sweeps failed: {beat.failures}, worker: {worker.log()[-1500:]}\n"
                    f"{describe(game.pk)}"
                ),
            )
            wait_until(socket.closed.is_set, 15, "the socket closing without Redis")
            attempt = socket.connect()
            wait_until(socket.closed.is_set, 10, "the socket refused without Redis")
            assert (attempt, LAYER_DOWN) in socket.closes, socket.closes
            assert not socket.received(attempt)
            during_outage = [a for m in movers for a in m.answers if a.tag == "redis down"]

            fault_redis.start()  # a new Redis, empty, on the same port
            restarted_at = timezone.now()
            for mover in movers:
                mover.tag = "after the restart"

            # The worker reconnects to the new broker, the sweep queues the lost work again, and
            # the worker does it.
            wait_until(
                while_playing(
                    movers,
                    lambda: Event.objects.filter(
                        Q(actor=bot) | ~Q(cause=Event.Cause.PLAYER),
                        game=game,
                        created_at__gt=restarted_at,
                    ).exists(),
                ),
                40,
                "the server's work going on after the restart",
            )
            assert worker.log().count("] Connected to ") >= 2
            assert "Unrecoverable error" not in worker.log()
            stack.release(running)

            # The page reconnects (as often as it is told to come back later) with the version
            # it shows, and is brought up to date. (The people wait meanwhile, so that the game
            # is still on when it is back.)
            for mover in movers:
                mover.pause()
            assert Game.objects.get(pk=game.pk).is_playing

            def reconnected():
                number = socket.connect()
                answer = wait_until(
                    while_playing(
                        movers, lambda: socket.received(number) or socket.closed.is_set()
                    ),
                    10,
                    "an answer or a close",
                )
                return number if answer is not True else None

            before = version(game.pk)
            number = wait_until(reconnected, 20, "the socket reconnecting", step=0.5)
            first = socket.received(number)[0]
            assert first["type"] == "resync", first
            assert before <= first["version"] <= version(game.pk)
            for mover in movers:
                mover.resume()
            # ... and gets the pushes again; the game goes on to its end.
            play_on_to_the_end(game, movers, socket, number, after=first["version"])
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
    # The email task that was running when Redis went away finished after the restart (its
    # acknowledgement, due on the lost connection, could not be sent), and the worker lived on.
    wait_until(
        lambda: any(e["id"] == running["id"] and e["event"] == "ran" for e in stack.journal()),
        10,
        "the email task held through the restart finishing",
    )
    assert "Unrecoverable error" not in worker.log() and worker.alive()
    accepted_down = [a for a in during_outage if a.status == 200]
    assert len(accepted_down) >= 2
    assert beat.failures >= 1
    assert all(a.status in (200, 409) for a in during_outage), during_outage
    print(
        f"\n{checked} accepted moves, all in the log; {len(accepted_down)} accepted while Redis "
        f"was down (slowest {max(a.took for a in accepted_down) * 1000:.0f} ms); "
        f"{beat.failures} of {beat.runs + beat.failures} sweeps failed"
    )
