"""The Celery transport's channel (infra/redis_transport.py), once Celery has collected
its connection after a broker error: asked for a pool (to restore or acknowledge a message) it
raises redis-py's ConnectionError, a connection error kombu ignores on close, not the
AttributeError that stopped the worker. The whole story is tests/faults/test_redis_restarted.py."""

import pytest
from kombu import Connection
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.tasks.conftest import with_database

TRANSPORT = "infra.redis_transport:Transport"


def test_a_channel_of_a_collected_connection_says_it_is_closed(redis_url):
    connection = Connection(with_database(redis_url, 13), transport=TRANSPORT)
    channel = connection.default_channel
    assert channel.pool is not None  # an open connection's channel works as kombu's does
    assert channel.async_pool is not None

    connection.collect()  # what Celery does first after a broker error

    with pytest.raises(RedisConnectionError):
        channel.pool  # noqa: B018 - the property is the hook
    with pytest.raises(RedisConnectionError):
        channel.async_pool  # noqa: B018
    assert isinstance(RedisConnectionError(), connection.connection_errors)
    connection.close()  # and closing it afterwards does not raise
