from django.contrib import admin
from django.urls import include, path

from games.history import views as views_history
from games.notices import views as push_views
from games.play import views as game_views

from . import converters, views  # noqa: F401 (converters registers <name:...>, <id:...>)

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("sw.js", push_views.service_worker, name="service_worker"),
    path("manifest.webmanifest", views.web_manifest, name="web_manifest"),
    path("push/subscribe/", push_views.subscribe, name="push_subscribe"),
    path("push/unsubscribe/", push_views.unsubscribe, name="push_unsubscribe"),
    path("dashboard/", game_views.dashboard, name="dashboard"),
    path("dashboard/vacation/", game_views.vacation, name="vacation"),
    path("games/", include("games.urls")),
    path("leaderboard/", views_history.leaderboard, name="leaderboard"),
    path("players/<name:username>/games/", views_history.archive, name="archive"),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("admin/", admin.site.urls),
]
