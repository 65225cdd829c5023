import json
import uuid

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management.base import BaseCommand
from django.middleware.csrf import _get_new_csrf_string

from floorapp.models import Game


class Command(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=20)
        parser.add_argument("--players", type=int, default=2)
        parser.add_argument("--watchers", type=int, default=0, help="signed-in viewers a game")
        parser.add_argument(
            "--watch-one", type=int, default=0, help="more signed-in viewers of the first game"
        )
        parser.add_argument("--out", required=True)
        parser.add_argument("--delete", action="store_true")

    def handle(self, games, players, out, delete, watchers, watch_one, **kw):
        if delete:
            Game.objects.all().delete()
            Session.objects.all().delete()
            User.objects.filter(username__startswith="floor-").delete()
            return
        run = uuid.uuid4().hex[:6]
        tables = []
        for g in range(games):
            users = []
            for s in range(players):
                u = User(username=f"floor-{run}-{g}-{s}")
                u.set_unusable_password()
                u.save()
                users.append(u)
            game = Game.objects.create(state={"players": [u.pk for u in users]}, version=0)
            seats = [_signed_in(u) for u in users]
            viewers = []
            for w in range(watchers + (watch_one if g == 0 else 0)):
                u = User(username=f"floor-{run}-{g}-w{w}")
                u.set_unusable_password()
                u.save()
                viewers.append(_signed_in(u))
            tables.append({"game": game.pk, "version": 0, "players": seats, "watchers": viewers})
        with open(out, "w") as f:
            json.dump(tables, f)


def _signed_in(user) -> dict:
    """A browser's cookies after `user` logged in: a session and a CSRF cookie."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    csrf = _get_new_csrf_string()
    cookie = f"{settings.SESSION_COOKIE_NAME}={session.session_key}; "
    cookie += f"{settings.CSRF_COOKIE_NAME}={csrf}"
    return {"cookie": cookie, "csrf": csrf}
