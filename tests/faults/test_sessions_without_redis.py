"""A signed-in request needs its session, not Redis: with the cache unreachable, sessions are
read from the database (infra/sessions.py), where Django's cached_db store fails."""

import pytest
from asgiref.sync import async_to_sync
from django.contrib.sessions.backends import cached_db, db
from django.test import override_settings

from infra.services import free_port
from infra.sessions import SessionStore

pytestmark = pytest.mark.django_db

REDIS_DOWN = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
    }
}


def test_a_session_is_read_from_the_database_while_redis_is_down():
    stored = db.SessionStore()
    stored["_auth_user_id"] = "42"
    stored.save()
    with override_settings(CACHES=REDIS_DOWN):
        with pytest.raises(Exception):  # noqa: B017 - whatever redis-py raises, it is the cause
            cached_db.SessionStore(stored.session_key).load()
        assert SessionStore(stored.session_key).load() == {"_auth_user_id": "42"}
        assert async_to_sync(SessionStore(stored.session_key).aload)() == {"_auth_user_id": "42"}
        assert SessionStore("no-such-session-key-000000000000").load() == {}
