from django.urls import path

from infra import converters  # noqa: F401 (registers <id:...>)

from . import views

app_name = "first_visit"

urlpatterns = [
    path("play/", views.play_now, name="play_now"),
    path("learn/", views.learn, name="learn"),
    path("learn/no-thanks/", views.no_guide, name="no_guide"),
    path("learn/<id:game_id>/", views.guide, name="guide"),
    path("learn/<id:game_id>/step/", views.guide_step, name="guide_step"),
    path("guest/leave/", views.leave, name="leave"),
]
