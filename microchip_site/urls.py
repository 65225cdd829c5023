from django.contrib import admin
from django.urls import include, path

from games import views as game_views

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("dashboard/", game_views.dashboard, name="dashboard"),
    path("games/", include("games.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("admin/", admin.site.urls),
]
