"""Quick play through the API (issue 34): a program reads its seek (`GET /seek`), and a seek made
while the player holds a stream open lasts while they hold one, as lichess's seeks last while
their connection does: a client that crashed is not paired any more."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as DjangoClient
from django.utils import timezone

from games.models import Game, QuickPlaySeek
from games.play import quickplay

from .helpers import Client, token_for
from .test_stream import stream_of

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("live_layer", "closes_thread_connections"),
]


def api_of(user) -> Client:
    return Client(DjangoClient(), token_for(user, "play"))


def test_a_player_reads_their_seek(players):
    api = api_of(players[0])
    assert api.get("/seek").json() == {"seek": None}

    assert api.post("/seek", {"player_count": 3, "time_per_move": "12h"}).json()["waiting"]
    seek = api.get("/seek").json()["seek"]

    assert seek["player_count"] == 3 and seek["time_per_move"] == "12h" and seek["rated"]
    assert seek["held_by_stream"] is False and seek["since"]
    assert api.delete("/seek").status_code == 204
    assert api.get("/seek").json() == {"seek": None}


@pytest.mark.asyncio
async def test_a_seek_made_with_a_stream_open_ends_with_the_stream(players):
    ada = players[0]
    stream = await stream_of(ada)
    api = await sync_to_async(api_of)(ada)
    answer = await sync_to_async(api.post)("/seek", {"player_count": 2})
    assert answer.json()["waiting"] is True
    seek = (await sync_to_async(api.get)("/seek")).json()["seek"]
    assert seek["held_by_stream"] is True

    await stream.close()

    assert (await sync_to_async(api.get)("/seek")).json() == {"seek": None}
    assert not await QuickPlaySeek.objects.filter(user=ada).aexists()


@pytest.mark.asyncio
async def test_a_seek_stays_while_another_stream_of_the_player_is_open(players):
    ada = players[0]
    first, second = await stream_of(ada), await stream_of(ada)
    api = await sync_to_async(api_of)(ada)
    await sync_to_async(api.post)("/seek", {"player_count": 2})

    await first.close()
    assert await QuickPlaySeek.objects.filter(user=ada).aexists()
    await second.close()
    assert not await QuickPlaySeek.objects.filter(user=ada).aexists()


def test_a_seek_whose_stream_vanished_is_never_paired(players):
    """The process that held the stream died: nothing closed it, but its seek is no longer
    renewed, and once it has run out quick play drops it rather than pair it."""
    ada, brian = players[:2]
    quickplay.seek(user=ada, player_count=2, time_per_move=timedelta(days=1), rated=True,
                   held_for=timedelta(seconds=90))  # fmt: skip
    QuickPlaySeek.objects.filter(user=ada).update(held_until=timezone.now() - timedelta(seconds=1))

    made = quickplay.seek(user=brian, player_count=2, time_per_move=timedelta(days=1), rated=True)

    assert made is None and not Game.objects.exists()
    assert list(QuickPlaySeek.objects.values_list("user", flat=True)) == [brian.pk]


def test_limited_endpoints_say_their_policy_and_what_is_left(players, start_game, settings):
    """IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): the policy (quota `q` in a
    window of `w` seconds) and what is left of it (`r`, for `t` more seconds)."""
    settings.ACTION_RATE_LIMIT = "3/m"
    api = api_of(players[0])
    read = api.get("/me")
    assert read["RateLimit-Policy"] == '"api.read";q=600;w=60'
    quota, left = _fields(read["RateLimit"], "api.read")
    assert quota == 599 and 0 < left <= 60

    game = start_game(2)
    moves = [
        api.post(f"/games/{game.pk}/actions", {"version": None, "action": {"type": "undo"}})
        for _ in range(4)
    ]
    assert moves[0]["RateLimit-Policy"] == '"games.act";q=3;w=60'
    assert [_fields(move["RateLimit"], "games.act")[0] for move in moves] == [2, 1, 0, 0]
    assert moves[3].status_code == 429
    assert int(moves[3]["Retry-After"]) == _fields(moves[3]["RateLimit"], "games.act")[1]


def _fields(value: str, name: str) -> tuple[int, int]:
    """(r, t) of the policy `name` in a RateLimit field."""
    item, *parameters = value.split(";")
    assert item == f'"{name}"', value
    found = dict(parameter.split("=") for parameter in parameters)
    return int(found["r"]), int(found["t"])
