"""Private tables stay private to their players and the people invited, before and after they
start: the page, the socket (tests/live/test_access.py), the replay, the lobby's games to watch,
and their entries on other people's profiles. Public tables may be watched by anyone. An
outsider cannot tell a private table from one that does not exist (issue 20)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game
from games.play import actions

from .playing import next_move

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def client_for(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def table(players, **options):
    """A started two-player table of ada and brian (chloe is invited and stays away)."""
    game = actions.create_game(
        creator=players[0], player_count=2, time_per_move=DAY, invitees=("chloe",), **options
    )
    actions.join_game(game_id=game.pk, user=players[1], invite_token=game.invite_token)
    game.refresh_from_db()
    assert game.is_playing
    return game


def play_to_the_end(game):
    while (move := next_move(game)) is not None:
        seat, action = move
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
        if (current := Game.objects.get(pk=game.pk)).is_playing and current.deadline is not None:
            actions.take_last_tile(game_id=game.pk)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED


def sees(client, url) -> bool:
    response = client.get(url)
    assert response.status_code in (200, 302, 404), response.status_code
    return response.status_code == 200


def test_a_private_table_is_seen_by_its_players_and_invitees_only(players):
    game = table(players, access=Game.Access.INVITATION)  # private by default
    assert game.private
    page = reverse("games:game", args=[game.pk])
    ada, chloe, dmitri = client_for(players[0]), client_for(players[2]), client_for(players[3])

    assert sees(ada, page) and sees(chloe, page)
    missing = reverse("games:game", args=[game.pk + 1000])
    # An outsider gets exactly what a game that does not exist gets.
    assert dmitri.get(page).status_code == dmitri.get(missing).status_code == 404
    assert client_for().get(page).status_code == 302  # signed out: to log in, as for none
    lobby = dmitri.get(reverse("games:lobby")).content.decode()
    assert f"/games/{game.pk}/" not in lobby
    assert f"/games/{game.pk}/" in ada.get(reverse("games:lobby")).content.decode()


def test_a_public_table_may_be_watched_by_anyone(players):
    game = table(players, access=Game.Access.INVITATION, private=False)
    page = reverse("games:game", args=[game.pk])
    assert sees(client_for(players[3]), page) and sees(client_for(), page)
    assert (
        f"/games/{game.pk}/" in client_for(players[3]).get(reverse("games:lobby")).content.decode()
    )


def test_a_finished_private_game_keeps_its_replay_and_profile_entries_to_its_own(players):
    private = table(players, access=Game.Access.INVITATION)
    public = table(players, access=Game.Access.OPEN)
    for game in (private, public):
        play_to_the_end(game)
    replay = reverse("games:replay", args=[private.pk])
    outsider, brian = client_for(players[3]), client_for(players[1])

    assert outsider.get(replay).status_code == 404
    assert brian.get(replay).status_code == 200
    assert sees(outsider, reverse("games:replay", args=[public.pk]))
    for path in (f"/players/{players[0].username}/", f"/players/{players[0].username}/games/"):
        seen_by_outsider = outsider.get(path).content.decode()
        assert f"/games/{public.pk}/" in seen_by_outsider
        assert f"/games/{private.pk}/" not in seen_by_outsider
        assert f"/games/{private.pk}/" in brian.get(path).content.decode()  # a player of it
        assert f"/games/{private.pk}/" in client_for(players[0]).get(path).content.decode()


def test_the_table_setting_is_chosen_on_the_new_game_form(players):
    ada = client_for(players[0])
    form = ada.get(reverse("games:create")).content.decode()
    assert "Who can watch" in form
    base = {"player_count": 2, "time_per_move": "1d"}
    ada.post(reverse("games:create"), {**base, "name": "A", "access": "open", "private": "yes"})
    ada.post(reverse("games:create"), {**base, "name": "B", "access": "invitation",
                                       "private": "no"})  # fmt: skip
    ada.post(reverse("games:create"), {**base, "name": "C", "access": "invitation"})
    ada.post(reverse("games:create"), {**base, "name": "D", "access": "open"})
    private = dict(Game.objects.values_list("name", "private"))
    assert private == {"A": True, "B": False, "C": True, "D": False}
