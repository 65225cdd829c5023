from django.contrib import admin
from django.urls import include, path
from django.views.decorators.cache import cache_page
from django.views.i18n import JavaScriptCatalog

from accounts import views as account_views
from games.api.site import api
from games.history import views as views_history
from games.notices import views as push_views
from games.play import lobby_views
from infra import converters  # noqa: F401 (registers <name:...>, <id:...>)

from . import views
from .translations import scripts_catalogue_version

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("sw.js", push_views.service_worker, name="service_worker"),
    path("manifest.webmanifest", views.web_manifest, name="web_manifest"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("push/subscribe/", push_views.subscribe, name="push_subscribe"),
    path("push/unsubscribe/", push_views.unsubscribe, name="push_unsubscribe"),
    path("dashboard/", lobby_views.dashboard, name="dashboard"),
    path("dashboard/vacation/", lobby_views.vacation, name="vacation"),
    path("games/", include("games.urls")),
    path("puzzles/", include("games.puzzles.urls")),
    path("tournaments/", include("games.tournaments.urls")),
    # "Play now" as a guest, the guided first game (games/first_visit/).
    path("", include("games.first_visit.urls")),
    path("leaderboard/", views_history.leaderboard, name="leaderboard"),
    path("players/<name:username>/games/", views_history.archive, name="archive"),
    # allauth's sign-up behind the site's own count per address (accounts/views.py); the rest
    # of allauth's pages as they are. The admin's log-in is the site's (accounts/admin_site.py).
    path("accounts/signup/", account_views.signup, name="account_signup"),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("", include("games.players.urls")),  # a player's page, /players/<name>/
    path("language/", account_views.choose_language, name="choose_language"),
    # The scripts' words in the page's language: a day in the cache, whose key names the language
    # and the catalogues' version (the page's address for it carries both).
    path(
        "jsi18n/",
        cache_page(86400, key_prefix=f"jsi18n-{scripts_catalogue_version()}")(
            JavaScriptCatalog.as_view()
        ),
        name="javascript_catalog",
    ),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
]

# A failure's answer: 503 when the database is out of reach, else 500 (microchip_site/errors.py).
handler500 = "microchip_site.errors.server_error"
