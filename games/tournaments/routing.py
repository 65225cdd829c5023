"""The tournaments' websocket route (microchip_site/asgi.py puts it before the games')."""

from django.urls import path

from .consumers import TournamentConsumer

websocket_urlpatterns = [
    path(
        "ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi(), name="live-tournament"
    ),
]
