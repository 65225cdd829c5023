"""The ASGI entry point that daphne serves: HTTP pages and the live websocket layer."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")

# Django must be set up before anything imports models (the websocket routes do).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

application = ProtocolTypeRouter({"http": django_asgi_app})
