"""Presence is shared by every daphne process through Redis, and stays right when their sockets
arrive and leave at the same moment (two tabs of one player on two processes, a reconnect storm
after a restart): each change is one atomic Redis command, never read, change, write back."""

import threading

import pytest
from django.core.cache import cache

from games import presence
from tests.tasks.conftest import with_database

TABS = 12


@pytest.fixture
def redis_cache(settings, redis_url):
    """The cache on the run's Redis, as every process of a deployment shares it."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": with_database(redis_url, 12),
            "KEY_PREFIX": "test-presence",
        }
    }
    cache.clear()
    yield
    cache.clear()


def at_once(calls):
    """Run each call on its own thread at the same moment; return their results in order."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        results[index] = call()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


@pytest.mark.parametrize("backend", ["redis", "local"])
def test_sockets_arriving_and_leaving_at_once_are_all_counted(backend, request):
    if backend == "redis":
        request.getfixturevalue("redis_cache")
    game_id, user_id = 7, 42
    tabs = [f"daphne-{n % 2}.socket-{n}" for n in range(TABS)]

    arrived = at_once([lambda tab=tab: presence.arrive(game_id, user_id, tab) for tab in tabs])

    assert arrived.count(True) == 1  # the dot turned on once
    assert presence.watching(game_id, [user_id, 43]) == {user_id}
    # All tabs but the last close at once: the player is still watching.
    left = at_once([lambda tab=tab: presence.depart(game_id, user_id, tab) for tab in tabs[:-1]])
    assert left == [False] * (TABS - 1)
    assert presence.is_watching(game_id, user_id)
    # The last one closes: now the dot turns off.
    assert presence.depart(game_id, user_id, tabs[-1]) is True
    assert not presence.is_watching(game_id, user_id)
    assert presence.watching(game_id, [user_id]) == set()
