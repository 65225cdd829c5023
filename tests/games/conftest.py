from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress

from accounts.models import User
from games import actions


@pytest.fixture
def make_player(db):
    def make(username):
        user = User.objects.create_user(username, f"{username}@example.com", "a-long-Passphrase-42")
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        return user

    return make


@pytest.fixture
def players(make_player):
    return [make_player(name) for name in ("ada", "brian", "chloe", "dmitri", "esme")]


@pytest.fixture
def start_game(players, django_capture_on_commit_callbacks):
    """Return a started game of `count` players (the first `count` players), seat order drawn."""

    def start(count=2, **options):
        options.setdefault("time_per_move", timedelta(days=1))
        game = actions.create_game(creator=players[0], player_count=count, **options)
        with django_capture_on_commit_callbacks(execute=True):
            for player in players[1:count]:
                actions.join_game(game_id=game.pk, user=player)
        game.refresh_from_db()
        return game

    return start
