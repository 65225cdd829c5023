"""Without Redis (a bare `manage.py`) the channel layer is the in-memory one, which lives on its
consumers' event loop: a push never raises there either, whoever sends it."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from games.live import pushes

pytestmark = pytest.mark.asyncio

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


async def test_a_push_from_code_that_runs_in_the_event_loop_reaches_the_group(settings):
    """Sync code called from async code (a test, an async view) runs where a loop is running:
    `async_to_sync` refuses to work there, and the push used to raise RuntimeError."""
    settings.CHANNEL_LAYERS = IN_MEMORY
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(pushes.game_group(7), channel)

    sent = pushes.send([(pushes.game_group(7), {"type": "game.changed", "version": 3})])

    assert sent is True
    message = await asyncio.wait_for(layer.receive(channel), 2)
    assert (message["type"], message["version"]) == ("game.changed", 3)


async def test_a_push_from_a_thread_without_a_loop_reaches_the_group(settings):
    """A view's or a task's thread: the push runs on the consumers' loop and is waited for."""
    settings.CHANNEL_LAYERS = IN_MEMORY
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(pushes.user_group(5), channel)
    event = {"type": "user.notify", "game": 1, "badge": True, "notice": ""}

    assert await sync_to_async(pushes.send)([(pushes.user_group(5), event)]) is True
    message = await asyncio.wait_for(layer.receive(channel), 2)
    assert message["type"] == "user.notify"
