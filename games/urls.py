from django.urls import path

from games.history import views as views_history
from games.play import chat_views, lobby_views, report_views, views
from infra import converters  # noqa: F401 (registers <name:...>, <id:...>)

app_name = "games"

urlpatterns = [
    path("", lobby_views.lobby, name="lobby"),
    path("new/", lobby_views.create, name="create"),
    path("quick/", lobby_views.quick_play, name="quick_play"),
    path("join/<name:token>/", views.join_by_link, name="join_by_link"),
    path("<id:game_id>/", views.game_page, name="game"),
    path("<id:game_id>/fragment/", views.game_fragment, name="fragment"),
    path("<id:game_id>/act/", views.act, name="act"),
    path("<id:game_id>/log/", views.move_log, name="log"),
    path("<id:game_id>/queue/", views.queue, name="queue"),
    path("<id:game_id>/notices/dismiss/", views.dismiss_notices, name="dismiss_notices"),
    path("<id:game_id>/resign/", views.resign, name="resign"),
    path("<id:game_id>/expel/", views.expel, name="expel"),
    path("<id:game_id>/join/", views.join, name="join"),
    path("<id:game_id>/leave/", views.leave, name="leave"),
    path("<id:game_id>/start/", views.start, name="start"),
    path("<id:game_id>/cancel/", views.cancel, name="cancel"),
    path("<id:game_id>/decline/", views.decline, name="decline"),
    path("<id:game_id>/rematch/", views.rematch, name="rematch"),
    path("<id:game_id>/invite/", views.invite, name="invite"),
    path("<id:game_id>/chat/", chat_views.messages_or_send, name="chat"),
    path("<id:game_id>/chat/<id:message_id>/delete/", chat_views.delete, name="chat_delete"),
    path("<id:game_id>/chat/read/", chat_views.read, name="chat_read"),
    path("<id:game_id>/replay/", views_history.replay, name="replay"),
    path("mine/", views_history.my_games, name="mine"),
    path("report/", report_views.report, name="report"),
]
