"""A player's name with a NUL character in it, where the API takes a name: nobody is called that,
so the answer is the one for a name nobody holds, never a server error. (PostgreSQL refuses a
NUL in a query; Django's forms refuse it before, the API's fields did not: the schema fuzzer
found an invitation answered 500.)"""

from datetime import timedelta

import pytest

from games.models import Invitation
from games.play import actions

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db


def test_an_invitation_to_a_name_with_nul_is_refused_as_no_such_player(client, players):
    game = actions.create_game(creator=players[0], player_count=3, time_per_move=timedelta(days=1))
    api = Client(client, token_for(players[0]))

    answer = api.post(f"/games/{game.pk}/invite", {"username": f"{players[1].username}\x00"})

    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "no_such_player"
    assert not Invitation.objects.filter(game=game).exists()
    # The same name without it is a player, and is invited.
    again = api.post(f"/games/{game.pk}/invite", {"username": players[1].username})
    assert again.status_code == 200, again.content
    assert Invitation.objects.filter(game=game, user=players[1]).exists()


@pytest.mark.parametrize("tail", ["", "/games", "/ratings"])
def test_a_profile_asked_for_a_name_with_nul_is_not_found(client, players, tail):
    api = Client(client, token_for(players[0], "read"))

    answer = api.get(f"/players/{players[1].username}%00{tail}")

    assert answer.status_code == 404, answer.content
    assert api.get(f"/players/{players[1].username}{tail}").status_code == 200
