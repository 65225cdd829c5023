from django.urls import path

from infra import converters  # noqa: F401 (registers <id:...>)

from . import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.create, name="create"),
    path("<id:tournament_id>/", views.detail, name="detail"),
    path("<id:tournament_id>/live/", views.fragment, name="fragment"),
    path("<id:tournament_id>/register/", views.register, name="register"),
    path("<id:tournament_id>/withdraw/", views.withdraw, name="withdraw"),
    path("<id:tournament_id>/start/", views.start, name="start"),
    path("<id:tournament_id>/cancel/", views.cancel, name="cancel"),
    path("<id:tournament_id>/invite/", views.invite, name="invite"),
]
