"""When the API says a game waits for the caller's move (issue 34): once a turn on the stream,
not again when the player drafts (the draft's own event changes the pool), and not while the
server's forced take of a column's last tile is due (the server moves, not the player)."""

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as DjangoClient

from games import rules
from games.play import actions
from tests.games.playing import current_state, draft_the_top_tile

from .helpers import Client, token_for
from .test_stream import stream_of

pytestmark = pytest.mark.django_db


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("live_layer", "closes_thread_connections")
async def test_your_move_comes_once_a_turn_not_again_after_ones_own_draft(start_game):
    game = await sync_to_async(start_game)(2)
    state = await sync_to_async(current_state)(game)
    mover = await sync_to_async(lambda: game.seats.get(number=state.current).user)()
    stream = await stream_of(mover)
    first = await stream.next_of("game")
    assert first["your_move"] is True

    draft = rules.Draft(state.draw_tiles()[0])
    await sync_to_async(actions.play)(game_id=game.pk, user=mover, action=draft, seen_version=None)
    lines = await stream.lines_until_quiet()
    assert [line["kind"] for line in lines if line["type"] == "event"] == ["draft"]
    assert [line for line in lines if line["type"] == "your_move"] == []

    confirm = rules.ConfirmDraft()
    await sync_to_async(actions.play)(
        game_id=game.pk, user=mover, action=confirm, seen_version=None
    )
    other = await sync_to_async(lambda: game.seats.exclude(user=mover).get().user)()
    await sync_to_async(draft_the_top_tile)(game, lambda call, **kw: call(**kw))
    lines = await stream.lines_until_quiet()
    assert [line["type"] for line in lines].count("your_move") == 1  # the next turn, once
    assert other is not None
    await stream.close()


def test_a_forced_take_due_is_not_the_players_move(start_game, committed, lost_tasks):
    lost_tasks("games.take_last_tile")  # the server's forced take, not made yet
    game = start_game(2)
    for _ in range(4):  # four drafts leave one tile in the draw column, for seat 0
        draft_the_top_tile(game, committed)
    game.refresh_from_db()
    assert current_state(game).forced_action() is not None
    player = game.seats.get(number=0).user
    api = Client(DjangoClient(), token_for(player, "read"))

    shown = api.get(f"/games/{game.pk}").json()
    listed = api.get("/me/games", your_move="true").json()

    assert shown["your_move"] is False
    assert all(action["type"] != "take_last" for action in shown["legal_actions"])
    assert listed["count"] == 0

    actions.take_last_tile(game_id=game.pk)  # the server takes it: a turn of the other's
    assert api.get(f"/games/{game.pk}").json()["current_seat"] == 1
