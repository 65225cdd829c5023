import os

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from microchip_site import health as checks


def home(request):
    if request.user.is_authenticated:
        return redirect("dashboard")
    return render(request, "home.html")


@never_cache
def health(request):
    """Answer the load balancer: 200 when this process can reach the database, else 503.

    Redis is reported, not required (see microchip_site/health.py): without it moves still
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
