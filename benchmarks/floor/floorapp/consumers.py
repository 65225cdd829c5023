import json

from channels.generic.websocket import AsyncWebsocketConsumer

from . import html


class GameConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.group = f"game-{self.scope['url_route']['kwargs']['game_id']}"
        qs = self.scope.get("query_string", b"").decode()
        self.page = dict(p.split("=", 1) for p in qs.split("&") if "=" in p).get("page", "")
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def dispatch(self, message):
        # No close_old_connections hop per message: this consumer never touches the database.
        handler = getattr(self, message["type"].replace(".", "_"), None)
        if handler is not None:
            await handler(message)

    async def game_move(self, event):
        import logging
        import time

        if event.get("sent") and time.time() - event["sent"] > 1.0:
            logging.getLogger("floor.consumer").warning(
                "late in daphne: %.2f s", time.time() - event["sent"]
            )
        if event["page"] and event["page"] == self.page:
            return  # the mover's own page: its HTTP answer drew the move
        if "text" in event:  # drawn once by the move (FLOOR_HTML=template): forwarded
            await self.send(text_data=event["text"])
            return
        version = event["version"]
        await self.send(
            text_data=json.dumps(
                {"type": "push", "version": version, "html": html.board(event["seat"], version)},
                separators=(",", ":"),
            )
        )
