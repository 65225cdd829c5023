from django.contrib import admin
from django.urls import include, path

from games.history import views as views_history
from games.play import views as game_views

from . import converters, views  # noqa: F401 (converters registers <name:...>, <id:...>)

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("dashboard/", game_views.dashboard, name="dashboard"),
    path("games/", include("games.urls")),
    path("leaderboard/", views_history.leaderboard, name="leaderboard"),
    path("players/<name:username>/games/", views_history.archive, name="archive"),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("admin/", admin.site.urls),
]
