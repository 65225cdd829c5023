"""Celery's Redis transport (kombu's), made to survive a Redis restart while a task runs.

With acks_late, a task that is running when the broker connection drops still holds its message.
On the connection error Celery 5.7 first collects the old connection (kombu's
`Connection.collect()`, which sets its transport's `client` to None) and then closes it. Closing
kombu 5.7's Redis channel drops the channel's connection pools and then restores the unacked
message, for which it builds a new pool from `self.connection.client`: None by then, so an
AttributeError, which `Connection.maybe_close_channel` does not ignore and Celery takes for an
unrecoverable error. The worker stays up and never consumes again
(tests/faults/test_redis_restarted.py). The same happens when the running task ends later and
its acknowledgement goes to that closed channel.

There is no public setting for it: the latest Celery and kombu on PyPI (5.7.0 both) have that
code, `worker_cancel_long_running_tasks_on_connection_loss` cancels only after the close that
fails (and would kill the running task), and the transport options (`ack_emulation`,
visibility timeout...) do not change the order. So the channel's public `pool` and
`async_pool` (members of kombu's documented `kombu.transport.redis.Channel`) say what is true
once the channel's connection has gone: that it is closed, as redis-py's ConnectionError, one of
the transport's connection errors, which kombu ignores on close and Celery logs and reconnects
after. The message stays unacknowledged in Redis, if Redis kept it, and comes back after the
visibility timeout. Only the transport's public `Channel` attribute, the channel's `connection`
(its transport) and the transport's `client` (its kombu Connection) are used.
"""

from kombu.transport import redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(redis.Channel):
    def _check_open(self):
        if self.connection is None or self.connection.client is None:
            raise RedisConnectionError("this channel's broker connection is closed")

    @property
    def pool(self):
        self._check_open()
        return super().pool

    @property
    def async_pool(self):
        self._check_open()
        return super().async_pool


class Transport(redis.Transport):
    Channel = Channel
