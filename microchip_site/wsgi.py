"""The WSGI entry point: gunicorn serves the site's HTTP from it (`manage.py up --http N`,
README "Production layout"); the websockets need ASGI (microchip_site/asgi.py, daphne)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")

application = get_wsgi_application()

from infra.heap import freeze_after_start  # noqa: E402

freeze_after_start()  # each gunicorn worker imports this module after it is forked
