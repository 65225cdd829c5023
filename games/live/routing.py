"""Websocket routes (microchip_site/asgi.py serves them): one consumer for every open page."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path, re_path

from games.live.consumers import NO_SUCH_GAME, LiveConsumer


class NothingHere(AsyncWebsocketConsumer):
    """Any other address: closed like a game that does not exist (4404), where the router would
    raise and the server log a traceback and close with 1011."""

    async def connect(self):
        await self.accept()
        await self.close(code=NO_SUCH_GAME)


websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", LiveConsumer.as_asgi(), name="live-game"),
    path("ws/live/", LiveConsumer.as_asgi(), name="live-user"),
    re_path(r"", NothingHere.as_asgi()),
]
