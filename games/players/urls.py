"""A player's page and its buttons (games/players/views.py): /players/<name>/ and the posts of
its Follow and Block buttons, /players/<name>/follow/ and so on."""

from django.urls import path

from infra import converters  # noqa: F401 (registers <name:...>)

from . import views

app_name = "players"

urlpatterns = [
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
]
