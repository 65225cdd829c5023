"""CPU of a move's reads and cache round trips, in one process (no servers but the database and
Redis): what the load benchmark's figures per process kind are made of, one part at a time.

    python -m benchmarks in-process

(with DATABASE_URL and REDIS_URL set; MICROCHIP_INPROCESS_N sets the count, 10,000 by default).
It creates one started game of two players, times the game's three reads (`read_game`, and
`lock_game` with `seats_in_order` in a transaction, beside an empty transaction), then, for
each cache backend that imports, a session read, a move's rate-limit count and a presence read,
both in the same context (a gunicorn worker keeps its cache object) and each in a context of
its own (daphne's sync code: every call a new cache object). It prints microseconds of CPU
(time.process_time) per call, and deletes what it created.
"""

import contextvars
import os
import time
import uuid
from datetime import timedelta

from django.core.cache import caches
from django.db import transaction
from django.test import RequestFactory, override_settings
from django.utils.module_loading import import_string

from accounts.models import User
from games import presence
from games.models import Game
from games.play import actions
from games.state_store import lock_game, read_game, seats_in_order

# The cache backends to compare, each where it imports: the code before django-redis had
# Django's RedisCache with one client per pool and one pool per process, in
# the project root's redis_cache.py and redis_pool.py (run this file in such a checkout for those).
BACKENDS = {
    "django-redis": {"BACKEND": "django_redis.cache.RedisCache"},
    "django + shared client/pool": {
        "BACKEND": "microchip_site.redis_cache.RedisCache",
        "OPTIONS": {"pool_class": "microchip_site.redis_pool.SharedConnectionPool"},
    },
}


def cpu_per_call(call, count: int) -> float:
    """Microseconds of CPU per call."""
    for _ in range(min(count // 10, 200)):  # warm up
        call()
    started = time.process_time()
    for _ in range(count):
        call()
    return (time.process_time() - started) / count * 1e6


def fresh_context(call):
    """`call` in a context of its own, as each of daphne's sync_to_async calls runs."""
    empty = contextvars.Context()
    return lambda: empty.copy().run(call)


def main():
    count = int(os.environ.get("MICROCHIP_INPROCESS_N", "10000"))
    run = uuid.uuid4().hex[:8]
    users = []
    for seat in range(2):
        user = User(username=f"inproc-{run}-{seat}", email=f"inproc-{run}-{seat}@example.invalid")
        user.set_unusable_password()
        user.save()
        users.append(user)
    try:
        game = actions.create_game(
            creator=users[0], player_count=2, time_per_move=timedelta(days=1), rated=True
        )
        actions.join_game(game_id=game.pk, user=users[1])
        game, _ = read_game(game.pk)
        if not game.is_playing:
            actions.start_game(game_id=game.pk, user=users[0])
        report(game.pk, [user.pk for user in users], count)
    finally:
        Game.objects.filter(created_by__in=users).delete()
        User.objects.filter(pk__in=[user.pk for user in users]).delete()


def report(game_id: int, user_ids: list[int], count: int):
    def locked():
        with transaction.atomic():
            game = lock_game(game_id)
            seats_in_order(game)

    def empty_transaction():
        with transaction.atomic():
            pass

    print(f"{count} calls each, microseconds of CPU per call")
    for label, call in (
        ("read_game", lambda: read_game(game_id)),
        ("lock_game + seats_in_order", locked),
        ("(an empty transaction)", empty_transaction),
    ):
        print(f"  {label:<30} {cpu_per_call(call, count):7.1f}")

    from django.conf import settings

    location = settings.REDIS_URL
    if not location:
        print("no REDIS_URL: no cache figures")
        return
    from games.play.rate_limits import Limit, seconds_to_wait

    request = RequestFactory().post("/")
    request.user = User.objects.get(pk=user_ids[0])
    request.session = None
    for name, backend in BACKENDS.items():
        try:
            import_string(backend["BACKEND"])
            for option in backend.get("OPTIONS", {}).values():
                import_string(option)
        except ImportError:
            continue
        config = {"default": {**backend, "LOCATION": location, "KEY_PREFIX": "inproc"}}
        with override_settings(CACHES=config, ACTION_RATE_LIMIT="100000/m"):
            caches["default"].set("session-like", {"_auth_user_id": "1", "x": "y" * 40}, 60)

            def session():
                return caches["default"].get("session-like")

            def rate_limit():
                return seconds_to_wait(request, Limit("inproc", "ACTION_RATE_LIMIT"))

            def watching():
                return presence.watching(game_id, user_ids)

            def move():
                session()
                rate_limit()
                watching()

            on_redis = presence._redis()[1] is not None  # else presence reads the local way
            print(f"cache: {name}" + ("" if on_redis else " (presence: not on Redis)"))
            for label, call in (
                ("session read", session),
                ("rate-limit count", rate_limit),
                ("presence read", watching),
                ("all three", move),
            ):
                same = cpu_per_call(call, count)
                fresh = cpu_per_call(fresh_context(call), count)
                print(f"  {label:<18} same context {same:7.1f}   own context {fresh:7.1f}")
            caches["default"].clear()
