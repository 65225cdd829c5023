"""CPU of the pushes a daphne process draws for a page, in one process: from the version each
``game.changed`` event carries (games/drawing/cache/carried.py), and read back from the database and
Redis as before, in the same run.

    python -m benchmarks push-cost

(with DATABASE_URL and REDIS_URL set: the carried versions travel only on the Redis channel
layer). It plays one 2-player game to its end with the rules package's greedy player, keeping
the events the moves send, then draws every push one player's page gets (not those of their own
moves, which their answers drew), keeping that page's looks as its socket does
(games/live/consumers.py), first from the carried versions, then with them left out. It prints
milliseconds of CPU per push drawn (time.process_time), and deletes what it created.
"""

import os
import time
import uuid
from datetime import timedelta

from games.drawing import cache, updates
from games.drawing.cache.looks import STATUS
from games.live import pushes as live
from games.models import Game
from games.play import actions
from games.rules.greedy import next_action
from games.state_store import load_state, read_game
from infra import lru


def main():
    run = uuid.uuid4().hex[:8]
    users = [_player(f"pushcost-{run}-{seat}") for seat in range(2)]
    try:
        game = actions.create_game(
            creator=users[0], player_count=2, time_per_move=timedelta(days=1), rated=False
        )
        actions.join_game(game_id=game.pk, user=users[1])
        events = _play(game.pk, users)
        viewer = users[0]
        rounds = int(os.environ.get("MICROCHIP_PUSHCOST_ROUNDS", "5"))
        carried = min(_draw_all(events, viewer, carried=True) for _ in range(rounds))
        read = min(_draw_all(events, viewer, carried=False) for _ in range(rounds))
        drawn = sum(1 for _, mover in events if mover != viewer.pk)
        print(f"{drawn} pushes drawn for one page, best of {rounds} rounds, ms of CPU per push:")
        print(f"  from the carried version   {carried / drawn * 1000:6.2f}")
        print(f"  read back (as before)      {read / drawn * 1000:6.2f}")
    finally:
        Game.objects.filter(created_by__in=users).delete()
        for user in users:
            user.delete()


def _player(name):
    from accounts.models import User

    user = User(username=name, email=f"{name}@example.invalid")
    user.set_unusable_password()
    user.save()
    return user


def _play(game_id: int, users) -> list[tuple[dict, int]]:
    """Play the game to its end; return each ``game.changed`` event with the id of its mover."""
    sent, real_send = [], live.send
    live.send = lambda messages: sent.extend(messages) or True
    events = []
    try:
        while (found := _next_move(game_id)) is not None:
            seat, action = found
            game, seats = read_game(game_id)
            mover = seats[seat].user
            actions.play(game_id=game_id, user=mover, action=action, seen_version=game.version)
            _keep(events, sent, mover.pk)
            actions.take_last_tile(game_id=game_id)  # the worker's, here at once
            _keep(events, sent, 0)
    finally:
        live.send = real_send
    return events


def _keep(events: list, sent: list, mover_id: int) -> None:
    events.extend((event, mover_id) for _, event in sent if event["type"] == "game.changed")
    sent.clear()


def _next_move(game_id: int):
    game, seats = read_game(game_id)
    if game.status != Game.Status.PLAYING:
        return None
    return next_action(load_state(game, seats))


def _draw_all(events, viewer, *, carried: bool) -> float:
    """Seconds of CPU to draw every push of `events` for `viewer`'s page, as a daphne process
    that holds its socket and has drawn nothing yet."""
    lru.clear_all()
    cache.forget()
    cache.holds_sockets()
    shown: dict = {}
    spent = 0.0
    for event, mover in events:
        if not carried:
            event = {key: value for key, value in event.items() if key != "made"}
        started = time.process_time()
        cache.keep_carried(event)
        if mover == viewer.pk:  # the page's own move: its answer drew it
            for part in (STATUS, *(f"seat-{n}" for n in event["seats"])):
                shown.pop(part, None)
        elif not event["ended"]:
            _, now = updates.draw_change(event, viewer, shown)
            for part, looks in now.items():
                if looks is None:
                    shown.pop(part, None)
                else:
                    shown[part] = looks
        spent += time.process_time() - started
    return spent
