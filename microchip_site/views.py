import os

from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET

from games.first_visit import views as first_visit
from infra import health as checks


def home(request):
    """A player's home is their dashboard; a visitor's (and a guest's) the game shown
    (games/first_visit/showcase.py draws its parts)."""
    if request.user.is_authenticated and not request.user.is_guest:
        return redirect("dashboard")
    return render(request, "home.html", first_visit.home_context(request))


@require_GET
@cache_control(max_age=86400)
def favicon(request):
    """/favicon.ico, which browsers ask for on a page that names no icon (the admin's, an API
    answer): the site's icon, at its collected address."""
    return HttpResponsePermanentRedirect(static("microchip/favicon.svg"))


@require_GET
@cache_control(max_age=3600)
def web_manifest(request):
    """The web app manifest: the site installs from the browser and opens on the dashboard
    from the home screen. Served by a view so that the icons' addresses are those of the
    collected static files (hashed names in production)."""
    manifest = {
        "name": "Microchip Online",
        "short_name": "Microchip",
        "description": _("Play the tile-drafting game Microchip by correspondence."),
        "start_url": "/dashboard/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f5f6fa",
        "theme_color": "#1b2033",
        "icons": [
            {"src": static("microchip/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("microchip/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("microchip/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return JsonResponse(manifest, content_type="application/manifest+json")


@never_cache
def health(request):
    """Answer the load balancer: 200 when this process can reach the database, else 503.

    Redis is reported, not required (see infra/health.py): without it moves still
    work over HTTP, so a Redis outage shows as "degraded" and keeps the process in rotation.
    ``process`` is this process's id: several daphne processes may share one port.
    """
    database = checks.database_ok()
    redis = checks.redis_ok()
    if not database:
        status = "unavailable"
    elif redis is False:
        status = "degraded"
    else:
        status = "ok"
    body = {"status": status, "database": database, "redis": redis, "process": os.getpid()}
    return JsonResponse(body, status=200 if database else 503)
