"""Celery's Redis transport (kombu's), made to survive a Redis restart while a task runs.

With acks_late, a task that is running when the broker connection drops still holds its message.
Celery then lets the old connection go, and kombu 5.7's Redis channel of that message, when it is
closed or asked to acknowledge the message later, builds a new client from the connection it no
longer has: an AttributeError, which Celery takes for an unrecoverable error. The worker stays up
and never consumes again (tests/faults/test_redis_restarted.py). Here that channel says what is
true, that its connection is closed, as the connection error Celery logs and reconnects after;
the message stays unacknowledged in Redis, if Redis kept it, and comes back after the visibility
timeout.
"""

from kombu.transport import redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(redis.Channel):
    def _connparams(self, asynchronous=False):
        if self.connection.client is None:
            raise RedisConnectionError("this channel's broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(redis.Transport):
    Channel = Channel
