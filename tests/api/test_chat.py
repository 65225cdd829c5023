"""The table talk through the API (issue 34), as lichess's Board API has it: read and write, with
the site's own rules, since the endpoints call the site's functions (games/chat.py,
games/play/chat.py): who may read and write, a muted player, a block, the rate limit."""

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as DjangoClient

from accounts import blocking
from accounts.models import User
from games.models import ChatMessage
from games.play import chat as talk

from .helpers import Client, token_for
from .test_stream import stream_of

pytestmark = pytest.mark.django_db


def api_of(user, scope="play") -> Client:
    return Client(DjangoClient(), token_for(user, scope))


def test_a_player_writes_and_everyone_who_may_reads(start_game, players):
    game = start_game(2)
    ada, brian = players[:2]

    written = api_of(ada).post(f"/games/{game.pk}/chat", {"text": "good luck!\nhave fun"})

    assert written.status_code == 201
    message = written.json()
    assert message["text"] == "good luck! have fun"  # one line, as on the site
    assert message["author"] == {"username": "ada", "bot": False}
    talk = api_of(brian, "read").get(f"/games/{game.pk}/chat").json()
    assert (talk["readable"], talk["writable"]) == (True, True)
    assert [(m["id"], m["author"]["username"], m["text"]) for m in talk["messages"]] == [
        (message["id"], "ada", message["text"])
    ]
    watcher = api_of(players[3], "read").get(f"/games/{game.pk}/chat").json()
    assert watcher["readable"] and not watcher["writable"] and len(watcher["messages"]) == 1
    # Only what came after a message the client has.
    assert api_of(brian).get(f"/games/{game.pk}/chat", after=message["id"]).json()["messages"] == []


def test_the_talk_keeps_the_sites_rules(start_game, players, settings):
    game = start_game(2, spectators_read_chat=False)
    ada, brian, chloe = players[:3]

    watcher = api_of(chloe).get(f"/games/{game.pk}/chat").json()
    outsider = api_of(chloe).post(f"/games/{game.pk}/chat", {"text": "hello"})
    User.objects.filter(pk=brian.pk).update(chat_muted=True)
    muted = api_of(brian).post(f"/games/{game.pk}/chat", {"text": "hello"})
    long = api_of(ada).post(f"/games/{game.pk}/chat", {"text": "x" * 501})
    reader = api_of(ada, "read").post(f"/games/{game.pk}/chat", {"text": "hello"})

    assert (watcher["readable"], watcher["messages"]) == (False, [])
    assert (outsider.status_code, outsider.json()["code"]) == (403, "not_a_player")
    assert (muted.status_code, muted.json()["code"]) == (403, "muted")
    assert (long.status_code, long.json()["code"]) == (400, "bad_request")
    assert (reader.status_code, reader.json()["code"]) == (403, "scope")
    assert not ChatMessage.objects.exists()

    settings.CHAT_RATE_LIMIT = "2/m"
    said = [api_of(ada).post(f"/games/{game.pk}/chat", {"text": "hi"}) for _ in range(3)]
    assert [answer.status_code for answer in said] == [201, 201, 429]
    assert said[0]["RateLimit-Policy"] == '"games.chat";q=2;w=60'


def test_a_block_hides_each_others_messages(start_game, players):
    game = start_game(3)
    ada, brian, chloe = players[:3]
    talk.send_message(game_id=game.pk, user=ada, text="from ada")
    talk.send_message(game_id=game.pk, user=brian, text="from brian")
    blocking.block(blocker=brian, blocked=ada)

    seen = {
        player.username: [
            m["text"] for m in api_of(player).get(f"/games/{game.pk}/chat").json()["messages"]
        ]
        for player in (ada, brian, chloe)
    }

    assert seen == {
        "ada": ["from ada"],
        "brian": ["from brian"],
        "chloe": ["from ada", "from brian"],
    }


def test_reading_marks_the_talk_read_for_a_player(start_game, players):
    game = start_game(2)
    ada, brian = players[:2]
    talk.send_message(game_id=game.pk, user=ada, text="your move")
    seat = game.seats.get(user=brian)
    assert seat.chat_read == 0

    api_of(brian, "read").get(f"/games/{game.pk}/chat")

    seat.refresh_from_db()
    assert seat.chat_read == ChatMessage.objects.get().pk


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("live_layer", "closes_thread_connections")
async def test_the_stream_carries_the_talk_as_it_is_written(start_game, players):
    game = await sync_to_async(start_game)(2)
    ada, brian = players[:2]
    stream = await stream_of(brian)
    await stream.next_of("game")

    said = await sync_to_async(talk.send_message)(game_id=game.pk, user=ada, text="hello brian")

    line = await stream.next_of("chat")
    assert line == {
        "type": "chat",
        "game": game.pk,
        "id": said.message.pk,
        "author": {"username": "ada", "bot": False},
        "text": "hello brian",
        "at": line["at"],
        "deleted": False,
    }
    await sync_to_async(blocking.block)(blocker=brian, blocked=ada)
    await sync_to_async(talk.send_message)(game_id=game.pk, user=ada, text="still there?")
    assert [m for m in await stream.lines_until_quiet() if m["type"] == "chat"] == []
    await stream.close()
