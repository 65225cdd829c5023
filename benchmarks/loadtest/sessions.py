"""A signed-in browser without a browser: a server-side session and a CSRF secret."""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import transaction
from django.middleware.csrf import _get_new_csrf_string

from accounts.models import User
from games.models import Game


@dataclass(frozen=True)
class SignedIn:
    cookie: str  # the Cookie header: the session and the CSRF cookie
    csrf: str  # the X-CSRFToken header that goes with it
    session_key: str


def sign_in(user) -> SignedIn:
    """Log `user` in as a browser that used the log-in form would be."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    csrf = _get_new_csrf_string()
    cookie = f"{settings.SESSION_COOKIE_NAME}={session.session_key}; "
    cookie += f"{settings.CSRF_COOKIE_NAME}={csrf}"
    return SignedIn(cookie, csrf, session.session_key)


def delete_run(prefix: str, session_keys) -> tuple[int, int]:
    """Delete what a load run created: the games of the players whose names begin with
    `prefix` (with their seats, events and rating changes), those players (with their
    ratings) and the sessions of `session_keys`. Return (players, rows of games)."""
    users = User.objects.filter(username__startswith=prefix)
    with transaction.atomic():
        games = Game.objects.filter(created_by__in=users)
        # Locked first, as every move locks its game: a move still under way (the worker's,
        # a bot's) cannot add an event between the collection of the events and the delete.
        list(games.select_for_update().values_list("pk", flat=True))
        deleted, _ = games.delete()
        count = users.count()
        users.delete()
        Session.objects.filter(session_key__in=session_keys).delete()
    return count, deleted
