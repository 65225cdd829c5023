import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "floorsite.settings")
from django.core.asgi import get_asgi_application

django_asgi_app = get_asgi_application()
from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path
from floorapp.consumers import GameConsumer

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(
                URLRouter(
                    [
                        path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
                    ]
                )
            )
        ),
    }
)
