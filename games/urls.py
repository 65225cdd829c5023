from django.urls import path

from . import views, views_history

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("new/", views.create, name="create"),
    path("join/<str:token>/", views.join_by_link, name="join_by_link"),
    path("<int:game_id>/", views.game_page, name="game"),
    path("<int:game_id>/fragment/", views.game_fragment, name="fragment"),
    path("<int:game_id>/act/", views.act, name="act"),
    path("<int:game_id>/join/", views.join, name="join"),
    path("<int:game_id>/leave/", views.leave, name="leave"),
    path("<int:game_id>/start/", views.start, name="start"),
    path("<int:game_id>/cancel/", views.cancel, name="cancel"),
    path("<int:game_id>/invite/", views.invite, name="invite"),
    path("<int:game_id>/replay/", views_history.replay, name="replay"),
    path("mine/", views_history.my_games, name="mine"),
]
