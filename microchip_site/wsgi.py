"""The WSGI entry point, for tools that want one; the platform itself runs on ASGI (daphne)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")

application = get_wsgi_application()
