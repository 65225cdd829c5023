"""Playing the same people again: a rematch of an ended game (same players, same table settings,
each invited at once, started when all have joined, called off when one declines), its offer
live on the others' pages, and declining an invitation."""

from datetime import timedelta

import pytest
from django.urls import reverse

from accounts.bots import new_bot
from games.models import Game, Invitation
from games.play import actions, rematches
from games.play.errors import ActionRefused
from tests.live.conftest import login as client_of

pytestmark = pytest.mark.django_db


def ended(start_game, count=3, **options):
    game = start_game(count, **options)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ENDED)
    game.refresh_from_db()
    return game


def users_of(game):
    return [seat.user for seat in game.seats.select_related("user").order_by("number")]


def test_a_rematch_invites_the_same_players_with_the_same_table_settings(start_game, committed):
    game = ended(
        start_game,
        3,
        time_per_move=timedelta(hours=8),
        rated=False,
        strict_finish=True,
        weekends_off=True,
        spectators_read_chat=False,
        abandon_after_row=4,
    )
    asker, *others = users_of(game)

    response = client_of(asker).post(reverse("games:rematch", args=[game.pk]))

    rematch = Game.objects.get(rematch_of=game)
    assert response.status_code == 302 and response["Location"] == f"/games/{rematch.pk}/"
    assert rematch.is_waiting and rematch.access == Game.Access.INVITATION
    assert [seat.user for seat in rematch.seats.all()] == [asker]
    assert set(Invitation.objects.filter(game=rematch).values_list("user", flat=True)) == {
        other.pk for other in others
    }
    for field in ("player_count", "time_per_move", "rated", "strict_finish", "weekends_off",
                  "spectators_read_chat", "abandon_after_row", "private"):  # fmt: skip
        assert getattr(rematch, field) == getattr(game, field), field
    # Everyone joins: it starts, its seats drawn anew.
    for other in others:
        committed(actions.join_game, game_id=rematch.pk, user=other)
    rematch.refresh_from_db()
    assert rematch.is_playing
    assert {seat.user_id for seat in rematch.seats.all()} == {u.pk for u in users_of(game)}


def test_a_second_ask_even_by_another_player_is_the_same_rematch(start_game):
    game = ended(start_game, 2)
    first, second = users_of(game)
    offered = rematches.offer_rematch(game_id=game.pk, user=first)
    assert rematches.offer_rematch(game_id=game.pk, user=second).pk == offered.pk
    assert Game.objects.filter(rematch_of=game).count() == 1


def test_only_the_players_of_an_ended_game_ask_for_a_rematch(start_game, make_player):
    playing = start_game(2)
    with pytest.raises(ActionRefused, match="once the game is over"):
        rematches.offer_rematch(game_id=playing.pk, user=users_of(playing)[0])
    game = ended(start_game, 2)
    with pytest.raises(ActionRefused, match="Only the game's players"):
        rematches.offer_rematch(game_id=game.pk, user=make_player("watcher"))
    assert not Game.objects.filter(rematch_of__isnull=False).exists()


def test_one_player_declining_calls_the_rematch_off_and_another_can_be_asked(start_game, committed):
    game = ended(start_game, 3)
    asker, joiner, decliner = users_of(game)
    rematch = rematches.offer_rematch(game_id=game.pk, user=asker)
    committed(actions.join_game, game_id=rematch.pk, user=joiner)

    response = client_of(decliner).post(reverse("games:decline", args=[rematch.pk]))

    assert response.status_code == 302
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.CANCELLED
    page = client_of(asker).get(reverse("games:game", args=[game.pk])).content.decode()
    assert "The rematch was called off." in page
    assert f'action="{reverse("games:rematch", args=[game.pk])}"' in page
    again_offered = rematches.offer_rematch(game_id=game.pk, user=joiner)
    assert again_offered.pk != rematch.pk and again_offered.is_waiting


def test_the_ended_game_s_page_shows_the_rematch_to_players_and_watchers(start_game, make_player):
    game = ended(start_game, 2)
    asker, other = users_of(game)
    before = client_of(other).get(reverse("games:game", args=[game.pk])).content.decode()
    assert ">Rematch</button>" in before
    rematch = rematches.offer_rematch(game_id=game.pk, user=asker)

    page = client_of(other).get(reverse("games:game", args=[game.pk])).content.decode()
    assert f"<strong>{asker.username}</strong> asks for a rematch" in page
    assert f'href="/games/{rematch.pk}/">Rematch: {game.title}</a>' in page
    assert f'id="rematch-accept" hx-post="/games/{rematch.pk}/join/"' in page
    assert f'hx-post="/games/{rematch.pk}/decline/">Decline</button>' in page
    # The player who asked sees whom it waits for.
    mine = client_of(asker).get(reverse("games:game", args=[game.pk])).content.decode()
    assert f'You asked for a rematch, <a href="/games/{rematch.pk}/">' in mine
    assert f"waiting for {other.username} to accept." in mine
    watcher = client_of(make_player("watcher")).get(reverse("games:game", args=[game.pk]))
    assert ">Rematch</button>" not in watcher.content.decode()
    assert "watch its table" in watcher.content.decode()


def test_computer_players_sit_down_at_once_in_a_rematch(start_game, players):
    new_bot("easy")
    game = actions.create_game(
        creator=players[0],
        player_count=3,
        time_per_move=timedelta(days=1),
        bots=("easy", "expert"),
    )
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ENDED)
    rematch = rematches.offer_rematch(game_id=game.pk, user=players[0])
    rematch.refresh_from_db()
    assert rematch.is_playing  # everyone (the person asking and the computer) is seated
    seated = sorted(
        (seat.user.bot_level or "", seat.user_id) for seat in rematch.seats.select_related("user")
    )
    assert [level for level, _ in seated] == ["", "easy", "expert"]  # the same levels again
    assert seated[0] == ("", players[0].pk)


def test_declining_an_ordinary_invitation_leaves_the_table_waiting(start_game, players):
    game = actions.create_game(
        creator=players[0],
        player_count=3,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=(players[1].username,),
    )
    page = client_of(players[1]).get(reverse("games:game", args=[game.pk])).content.decode()
    assert "Decline the invitation" in page

    client_of(players[1]).post(reverse("games:decline", args=[game.pk]))

    game.refresh_from_db()
    assert game.is_waiting and not Invitation.objects.filter(game=game).exists()
    assert game.events.filter(kind="declined", actor=players[1]).exists()
    with pytest.raises(ActionRefused, match="no invitation"):
        actions.decline_invitation(game_id=game.pk, user=players[1])
    with pytest.raises(ActionRefused):  # and may no longer join a table by invitation
        actions.join_game(game_id=game.pk, user=players[1])


def test_a_page_asks_for_the_rematch_with_htmx_and_goes_to_its_table(start_game):
    game = ended(start_game, 2)
    asker = users_of(game)[0]
    response = client_of(asker).post(
        reverse("games:rematch", args=[game.pk]), HTTP_HX_REQUEST="true"
    )
    rematch = Game.objects.get(rematch_of=game)
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("games:game", args=[rematch.pk])


def test_new_game_with_a_player_from_their_profile_is_prefilled(players):
    ada, brian = players[0], players[1]
    profile = client_of(ada).get(reverse("players:profile", args=[brian.username])).content.decode()
    link = f"{reverse('games:create')}?with={brian.username}"
    assert f'href="{link}">New game with {brian.username}</a>' in profile
    own = client_of(ada).get(reverse("players:profile", args=[ada.username])).content.decode()
    assert "New game with" not in own

    form = client_of(ada).get(link).context["form"]
    assert form.initial == {"player_count": 2, "access": "invitation", "invitees": "brian"}
    bot = new_bot("strong")
    form = client_of(ada).get(f"{reverse('games:create')}?with={bot.username}").context["form"]
    assert form.initial == {"player_count": 2, "strong_bots": 1}
    expert = new_bot("expert")  # (a transactional test's flush may have removed the migration's)
    profile = client_of(ada).get(reverse("players:profile", args=[expert.username])).content
    assert "A computer player (expert)" in profile.decode()
    form = client_of(ada).get(f"{reverse('games:create')}?with={expert.username}").context["form"]
    assert form.initial == {"player_count": 2, "expert_bots": 1}
    assert '<option value="1" selected>1</option>' in form["expert_bots"].as_widget()
    assert (
        client_of(ada).get(f"{reverse('games:create')}?with=nobody").context["form"].initial == {}
    )
