"""The ASGI entry point that daphne serves: HTTP pages and the live websocket layer."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")

# Django must be set up before anything imports models (the websocket routes do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.live.routing import websocket_urlpatterns  # noqa: E402
from games.tournaments.routing import websocket_urlpatterns as tournament_urls  # noqa: E402
from infra.heap import freeze_after_start  # noqa: E402
from microchip_site.origins import OriginCheck  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # The session's user (AuthMiddlewareStack), and only from this site's own pages: a
        # browser always sends Origin with a websocket, and it must be the site's own, scheme,
        # host and port alike (microchip_site/origins.py).
        "websocket": OriginCheck(
            AuthMiddlewareStack(URLRouter(tournament_urls + websocket_urlpatterns))
        ),
    }
)

freeze_after_start()
