"""Hostile and bad input: fixtures shared by the security tests.

`world` is the set of games every endpoint is tried against: a started game, tables waiting
(open and by invitation), a cancelled one and an ended one, each with its players' clients.
`state_of` reads everything a refused request must leave alone.
"""

import random
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from accounts.models import User
from benchmarks.generate import Played, _events, _game, _seats
from benchmarks.simulate import play_game
from games.history import ratings
from games.models import Event, Game, Invitation, Seat
from games.play import actions


@pytest.fixture(autouse=True)
def _generous_rate_limits(settings):
    """These tests send many requests from one player on purpose: the per-player limits of
    games/play/rate_limits.py (tested in their own package) are raised out of the way, so that every
    answer here is the one the input itself earns."""
    settings.ACTION_RATE_LIMIT = "100000/m"
    settings.GAME_CREATE_RATE_LIMIT = "100000/m"
    settings.INVITE_RATE_LIMIT = "100000/m"
    settings.SEAT_CHANGE_RATE_LIMIT = "100000/m"
    settings.CHAT_RATE_LIMIT = "100000/m"
    settings.REPORT_RATE_LIMIT = "100000/m"
    settings.PEOPLE_RATE_LIMIT = "100000/m"


def client_for(user=None) -> Client:
    """A browser, signed in as `user` (anonymous without one). A view that raises fails the
    test with its traceback (the test client re-raises it)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def state_of(game: Game) -> dict:
    """Everything about a game that a refused request must not change."""
    row = Game.objects.get(pk=game.pk)
    return {
        "game": {
            name: getattr(row, name)
            for name in (
                "status",
                "version",
                "pool_version",
                "pool",
                "phase",
                "current_seat",
                "pending_draft",
                "drafts",
                "deadline",
                "player_count",
                "name",
                "access",
                "invite_token",
            )
        },
        "seats": list(
            Seat.objects.filter(game=row)
            .order_by("number")
            .values_list(
                "user_id", "number", "board", "tray", "finished", "board_version", "queued_draft"
            )
        ),
        "events": Event.objects.filter(game=row).count(),
        "invitations": sorted(
            Invitation.objects.filter(game=row).values_list("user_id", flat=True)
        ),
    }


def everything() -> dict:
    """Every game's state, and the number of games: for requests that name no game."""
    return {
        "games": {game.pk: state_of(game) for game in Game.objects.order_by("pk")},
        "users": list(User.objects.order_by("pk").values()),
    }


def ended_game(users, name: str, seed: int = 7) -> Game:
    """A rated game between `users` (in seat order) played to its end by the rules engine's
    greedy players, stored as the platform stores one (the rows at the end and the whole event
    log, so it can be replayed) by the generated data's own builders (benchmarks/generate.py),
    and rated. Much quicker than playing it move by move through games/play/actions/."""
    rng = random.Random(seed)
    final, log = play_game(len(users), seed)
    played = Played(len(users), seed, [(seat, action.to_json()) for seat, action in log], final)
    seated = [user.pk for user in users]
    ended_at = timezone.now() - timedelta(hours=1)
    with transaction.atomic():
        game = _game(played, seated, rng, ended_at - timedelta(hours=5), ended_at, unrated=0.0)
        game.name = name
        game.save()
        seats = Seat.objects.bulk_create(_seats(game, played, seated, rng))
        Event.objects.bulk_create(_events(game, played, seated))
        ratings.rate_game(game=game, seats=seats)
    return game


@dataclass
class World:
    players: list[User]
    playing: Game  # started, two players: ada and brian
    open_table: Game  # waiting, open to anyone, chloe seated (3 players)
    invitation_table: Game  # waiting, by invitation, dmitri seated, brian invited (3 players)
    cancelled: Game  # cancelled by ada before it started
    ended: Game | None = None

    def seat_user(self, game: Game, number: int) -> User:
        return game.seats.get(number=number).user

    @property
    def games(self) -> list[Game]:
        found = [self.playing, self.open_table, self.invitation_table, self.cancelled]
        return found + ([self.ended] if self.ended else [])


@pytest.fixture
def world(players, start_game) -> World:
    ada, _, chloe, dmitri, _ = players
    playing = start_game(2, name="Playing")
    open_table = actions.create_game(
        creator=chloe, player_count=3, time_per_move=timedelta(days=1), name="Open table"
    )
    invitation_table = actions.create_game(
        creator=dmitri,
        player_count=3,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("brian",),
        name="Private table",
    )
    cancelled = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.cancel_game(game_id=cancelled.pk, user=ada)
    cancelled.refresh_from_db()
    return World(players, playing, open_table, invitation_table, cancelled)


@pytest.fixture
def world_with_ended(world) -> World:
    """The world, with a two-player game (ada and brian) played to its end."""
    world.ended = ended_game(world.players[:2], "Ended")
    return world
