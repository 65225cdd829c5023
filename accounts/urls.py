from django.urls import path

from microchip_site import converters  # noqa: F401 (registers <name:...>)

from . import unsubscribe, views

app_name = "accounts"

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("players/<name:username>/", views.profile, name="profile"),
    *(
        path(
            f"players/<name:username>/{change}/",
            views.people_change,
            {"change": change},
            name=change,
        )
        for change in views.PEOPLE_CHANGES
    ),
    path("unsubscribe/<str:token>/", unsubscribe.unsubscribe_view, name="unsubscribe"),
    path("unsubscribe/<str:token>/undo/", unsubscribe.undo_view, name="unsubscribe_undo"),
]
