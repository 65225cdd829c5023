from django.urls import path

from . import token_views, unsubscribe, views

app_name = "accounts"

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("settings/tokens/", token_views.tokens_page, name="api_tokens"),
    path("settings/tokens/<int:token_id>/revoke/", token_views.revoke_token, name="revoke_token"),
    path("settings/bots/", token_views.make_bot, name="make_bot"),
    path("settings/bots/<int:bot_id>/close/", token_views.close_bot, name="close_bot"),
    path("unsubscribe/<str:token>/", unsubscribe.unsubscribe_view, name="unsubscribe"),
    path("unsubscribe/<str:token>/undo/", unsubscribe.undo_view, name="unsubscribe_undo"),
]
