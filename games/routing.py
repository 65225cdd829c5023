"""Websocket routes (microchip_site/asgi.py serves them): one consumer for every open page."""

from django.urls import path

from .consumers import LiveConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", LiveConsumer.as_asgi(), name="live-game"),
    path("ws/live/", LiveConsumer.as_asgi(), name="live-user"),
]
