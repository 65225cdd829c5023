"""The tournaments' pages: the list, opening one by the form, registering and withdrawing, the
page before and during play (standings, rounds with links to the games, a round robin's
crosstable), the live part, and a player's profile listing their tournaments."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Game
from games.tournaments import actions
from games.tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def test_opening_a_tournament_by_the_form(client, make_player):
    organiser = make_player("orla")
    client.force_login(organiser)
    assert client.get(reverse("tournaments:create")).status_code == 200
    starts = (timezone.localtime() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    form = {
        "name": "Autumn Swiss",
        "format": "swiss",
        "table_size": "3",
        "rounds": "4",
        "starts_at": starts,
        "round_time": "14",
        "min_players": "3",
        "max_players": "30",
        "access": "public",
        "seeding": "rating",
        "place_points": "4, 1, 0",
        "time_per_move": "2d",
        "rated": "on",
        "min_rated_games": "0",
    }
    answer = client.post(reverse("tournaments:create"), form)
    tournament = Tournament.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == reverse("tournaments:detail", args=[tournament.pk])
    assert tournament.rounds == 4 and tournament.table_size == 3
    assert tournament.place_points == {"3": ["4", "1", "0"]}
    assert tournament.time_per_move == timedelta(days=2)
    # A refused setting comes back on the form with the reason.
    answer = client.post(reverse("tournaments:create"), {**form, "place_points": "0, 1, 4"})
    assert answer.status_code == 200
    assert "Points per place" in answer.content.decode()
    assert Tournament.objects.count() == 1


def test_registering_and_withdrawing_from_the_page(client, open_tournament, players):
    tournament = open_tournament(name="Page cup")
    client.force_login(players[0])
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "Register" in page and "Page cup" in page
    client.post(reverse("tournaments:register", args=[tournament.pk]))
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "You are registered." in page and "1 player registered" in page
    client.post(reverse("tournaments:register", args=[tournament.pk]))  # twice: refused
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "You are already registered for this tournament." in page
    client.post(reverse("tournaments:withdraw", args=[tournament.pk]))
    assert not tournament.entries.exists()
    listing = client.get(reverse("tournaments:list")).content.decode()
    assert "Page cup" in listing and "Open for registration" in listing


def test_a_running_swiss_shows_standings_and_each_rounds_tables(
    client, open_tournament, players, committed
):
    tournament = open_tournament(table_size=2, rounds=2, name="Running cup")
    for player in players[:4]:
        actions.register(tournament_id=tournament.pk, user=player)
    committed(actions.start, tournament_id=tournament.pk, by=tournament.created_by)
    games = Game.objects.filter(tournament_round__tournament=tournament)
    client.force_login(players[0])
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "Standings" in page and "Round 1" in page
    for game in games:
        assert reverse("games:game", args=[game.pk]) in page
    live = client.get(reverse("tournaments:fragment", args=[tournament.pk])).content.decode()
    assert "Standings" in live and "<html" not in live
    listing = client.get(reverse("tournaments:list")).content.decode()
    assert "Running cup" in listing and "round 1 of 2" in listing
    profile = client.get(reverse("players:profile", args=[players[1].username])).content.decode()
    assert reverse("tournaments:detail", args=[tournament.pk]) in profile


def test_a_round_robin_page_has_its_crosstable(client, open_tournament, players, committed):
    tournament = open_tournament(
        format=Tournament.Format.ROUND_ROBIN, table_size=2, section_size=3, name="Robin"
    )
    for player in players[:3]:
        actions.register(tournament_id=tournament.pk, user=player)
    committed(actions.start, tournament_id=tournament.pk, by=tournament.created_by)
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "Crosstable" in page and "Section A" in page


def test_an_unknown_tournament_is_not_found(client):
    assert client.get(reverse("tournaments:detail", args=[12345])).status_code == 404
