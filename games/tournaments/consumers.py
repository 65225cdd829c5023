"""A tournament page's socket: it joins the tournament's group and passes each change's new
version on to the page (games/static/games/tournament.js), which fetches its live part again.
Nothing is drawn here and nothing is changed; anyone who may see the page may listen."""

import json

from channels.generic.websocket import AsyncWebsocketConsumer

from . import live


class TournamentConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.group = live.group(int(self.scope["url_route"]["kwargs"]["tournament_id"]))
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """The page says nothing; a heartbeat is answered so it knows the socket lives."""
        await self.send(text_data=json.dumps({"type": "pong"}))

    async def tournament_changed(self, event):
        await self.send(text_data=json.dumps({"type": "changed", "version": event["version"]}))
