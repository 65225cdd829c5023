from django.urls import path

from games.puzzles import views

app_name = "puzzles"

urlpatterns = [
    path("", views.index, name="index"),
    path("next/", views.next_puzzle, name="next"),
    path("<slug:puzzle_id>/", views.puzzle_page, name="puzzle"),
    path("<slug:puzzle_id>/fragment/", views.fragment, name="fragment"),
    path("<slug:puzzle_id>/act/", views.act, name="act"),
]
