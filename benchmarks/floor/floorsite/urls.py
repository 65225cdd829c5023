from django.urls import path
from floorapp import views

urlpatterns = [path("games/<int:game_id>/move/", views.move)]
