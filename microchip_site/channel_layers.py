"""The Redis channel layer's settings, in one place for the settings and the tests."""

# Each consumer waits for its messages with a blocking pop of 5 s (channels_redis's
# brpop_timeout). redis-py 8 times out a read after 5 s by default, which killed the consumer of
# every idle page every 5 s (channels_redis issue 422); a longer read timeout still ends a
# connection that died without a word.
READ_TIMEOUT = 15


def redis_channel_layer(url: str, prefix: str) -> dict:
    """One entry of CHANNEL_LAYERS: channels-redis's layer on the Redis at `url`, its keys and
    groups under `prefix`."""
    return {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [{"address": url, "socket_timeout": READ_TIMEOUT}],
            "prefix": prefix,
        },
    }
