"""How many live sockets one player, and one address, may hold, and how fast they may open them.

Every open tab of the site holds a socket, so a player may have many, but one client held 300
and 30 reconnect loops slowed everyone's moves (issue 20). The rules, shared by every daphne
process through Redis:

- a player holds at most SOCKETS_PER_PLAYER sockets: a new one closes their oldest (its page is
  told it was replaced, and comes back when it is looked at again);
- an address holds at most SOCKETS_PER_ADDRESS (higher: many players may share one address): a
  socket past it is refused with "try again later";
- a player opens at most CONNECTS_PER_PLAYER a minute, an address CONNECTS_PER_ADDRESS: past it
  "try again later";
- a socket closed for flooding (games/live/consumers.py's token bucket) makes its player wait
  FLOOD_PAUSE seconds before the next one, or, not signed in, every socket not signed in from
  its address: the limit survives a reconnect. The other players at that address are not made
  to wait (one flooder behind a school's address would silence its every page; found by
  the soak test, whose flooders share the players' address): the address's own limits
  above hold them all.

A socket is a member of its player's and its address's sorted set, scored by when it expires:
the process that holds it keeps it alive (games/live/socket_keeper.py, every TTL / 3 seconds for
all its sockets at once), and a socket of a process that crashed drops out after TTL seconds.
The member's name begins with when it connected, so "the oldest" is the first opened. Without
Redis (a single process, development) nothing is limited.
"""

import logging
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import caches
from django_redis import get_redis_connection
from django_redis.cache import RedisCache

logger = logging.getLogger(__name__)

TTL = 60  # seconds a socket counts once its process stops keeping it (a crash)
WINDOW = 60  # seconds of the connect rates

# Close codes (the page's live.js acts on them).
REPLACED = 4409  # the player opened newer pages: this, the oldest, was closed
TOO_MANY_SOCKETS = 4429  # too many sockets or connections from here: try again later
FLOODING = 4408  # too many messages: wait


def _limit(name: str, default: int) -> int:
    return getattr(settings, name, default)  # settings.py reads each from the environment


@dataclass(frozen=True)
class Admission:
    """What `admit` decided for a new socket."""

    code: int | None = None  # a close code when refused
    member: str = ""  # the socket's name in the sets, for `refresh` and `release`
    evict: list[str] = field(default_factory=list)  # the channels of the player's oldest

    @property
    def allowed(self) -> bool:
        return self.code is None


def _client():
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend, get_redis_connection("default")
    return backend, None


def _keys(backend, user_id, address) -> dict[str, str]:
    keys = {"address": backend.make_key(f"sockets:address:{address}")}
    if user_id is not None:
        keys["player"] = backend.make_key(f"sockets:player:{user_id}")
    return keys


def admit(user_id: int | None, address: str, channel: str) -> Admission:
    """Decide whether a new socket of `user_id` (None: not signed in) from `address` may open,
    and record it if so; return which of the player's older sockets to close."""
    try:
        backend, client = _client()
        if client is None:
            return Admission()
        now = time.time()
        keys = _keys(backend, user_id, address)
        flooding = [backend.make_key(f"sockets:flooding:{who}") for who in _whos(user_id, address)]
        rates = {
            "address": (backend.make_key(f"sockets:rate:address:{address}"),
                        _limit("LIVE_CONNECTS_PER_ADDRESS", 240)),
        }  # fmt: skip
        if user_id is not None:
            rates["player"] = (backend.make_key(f"sockets:rate:player:{user_id}"),
                               _limit("LIVE_CONNECTS_PER_PLAYER", 60))  # fmt: skip
        pipe = client.pipeline(transaction=False)
        pipe.exists(*flooding)
        for key, _ in rates.values():
            pipe.set(key, 0, ex=WINDOW, nx=True)  # a window begins with the first connect
            pipe.incr(key)
        for key in keys.values():
            pipe.zremrangebyscore(key, "-inf", now)
        pipe.zcard(keys["address"])
        answers = pipe.execute()
        if answers[0]:
            return Admission(code=FLOODING)
        counts = answers[2 : 1 + 2 * len(rates) : 2]
        if any(count > limit for count, (_, limit) in zip(counts, rates.values(), strict=True)):
            return Admission(code=TOO_MANY_SOCKETS)
        if answers[-1] >= _limit("LIVE_SOCKETS_PER_ADDRESS", 200):
            return Admission(code=TOO_MANY_SOCKETS)

        member = f"{now:017.6f} {channel}"
        pipe = client.pipeline(transaction=True)
        for key in keys.values():
            pipe.zadd(key, {member: now + TTL})
            pipe.expire(key, TTL)
        if "player" in keys:
            pipe.zrange(keys["player"], 0, -1)
        answers = pipe.execute()
        evict = []
        if "player" in keys:
            members = sorted(member.decode() for member in answers[-1])
            excess = len(members) - _limit("LIVE_SOCKETS_PER_PLAYER", 20)
            if excess > 0:
                oldest = members[:excess]
                client.zrem(keys["player"], *oldest)
                evict = [name.split(" ", 1)[1] for name in oldest]
        return Admission(member=member, evict=evict)
    except Exception as error:  # a limit is a guard, never a reason to fail
        logger.warning("live: cannot count sockets of %s at %s: %s", user_id, address, error)
        return Admission()


def refresh_all(held: list[tuple[str, tuple[int | None, str]]]) -> None:
    """Keep the sockets `held` ((member, (user id, address)) each) counted, in one pipeline."""
    try:
        backend, client = _client()
        if client is None:
            return
        expiry = time.time() + TTL
        pipe = client.pipeline(transaction=False)
        keys = set()
        for member, (user_id, address) in held:
            if not address:
                continue
            for key in _keys(backend, user_id, address).values():
                pipe.zadd(key, {member: expiry}, xx=True)  # a socket released meanwhile stays out
                keys.add(key)
        for key in keys:
            pipe.expire(key, TTL)
        pipe.execute()
    except Exception as error:  # a limit is a guard, never a reason to fail
        logger.warning("live: cannot keep %d socket(s) counted: %s", len(held), error)


def release(user_id: int | None, address: str, member: str) -> None:
    """Stop counting a socket that closed."""
    _each_set(user_id, address, lambda pipe, key: pipe.zrem(key, member))


def flooding(user_id: int | None, address: str) -> None:
    """Make the player (or, not signed in, the address's sockets not signed in) wait before
    their next socket."""
    try:
        backend, client = _client()
        if client is None:
            return
        pause = _limit("LIVE_FLOOD_PAUSE", 60)
        pipe = client.pipeline(transaction=False)
        for who in _whos(user_id, address):
            pipe.set(backend.make_key(f"sockets:flooding:{who}"), 1, ex=pause)
        pipe.execute()
    except Exception as error:
        logger.warning("live: cannot mark %s at %s as flooding: %s", user_id, address, error)


def _whos(user_id, address) -> list[str]:
    """Who waits after a flood: the player, or the sockets not signed in at the address."""
    return [f"anonymous:{address}"] if user_id is None else [f"player:{user_id}"]


def _each_set(user_id, address, change) -> None:
    if not address:
        return
    try:
        backend, client = _client()
        if client is None:
            return
        pipe = client.pipeline(transaction=False)
        for key in _keys(backend, user_id, address).values():
            change(pipe, key)
            pipe.expire(key, TTL)
        pipe.execute()
    except Exception as error:
        logger.warning("live: cannot update the sockets of %s: %s", user_id, error)
