"""Play now as a guest: a real but temporary account, signed in at once, playing a computer
player on the real game page; kept by signing up (the same row: nothing moves), removed on
leaving or by the sweep after GUEST_DAYS."""

import re
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.first_visit import guests
from games.models import Event, Game, Seat
from games.play import actions
from games.state_store import load_state, read_game

# Committed for real: the sign-up's email leaves through the outbox after the commit.
pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-Passphrase-42"


def play_now(client, **data):
    return client.post(reverse("first_visit:play_now"), data)


def guest_game(client, **data):
    response = play_now(client, **data)
    assert response.status_code == 302, response.content.decode()[:500]
    game_id = int(re.fullmatch(r"/games/(\d+)/", response.url).group(1))
    return Game.objects.get(pk=game_id)


def test_play_now_signs_a_visitor_in_as_a_guest_playing_one_easy_computer_player():
    client = Client()
    game = guest_game(client)
    guest = User.objects.get(is_guest=True)
    assert client.session["_auth_user_id"] == str(guest.pk)
    assert guest.email == "" and not guest.has_usable_password()
    assert not guest.email_your_turn and not guest.email_invitation
    players = {seat.user.bot_level for seat in game.seats.select_related("user")}
    assert players == {None, "easy"}
    assert game.is_playing and not game.rated and game.private
    page = client.get(reverse("games:game", args=[game.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Sign up to keep this game" in text
    assert 'id="pool"' in text  # the real game page


def test_the_strong_computer_player_on_request():
    game = guest_game(Client(), level="strong")
    assert game.seats.filter(user__bot_level="strong").exists()


def test_the_expert_computer_player_on_request_and_no_level_there_is_not():
    game = guest_game(Client(), level="expert")
    assert game.seats.get(user__bot_level="expert").user.username == "ExpertBot"
    refused = play_now(Client(), level="grandmaster")
    assert refused.status_code == 400
    assert "There is no such computer player." in refused.content.decode()
    assert User.objects.filter(is_guest=True).count() == 1  # no guest made for it


def test_a_guest_plays_moves_on_the_real_game():
    client = Client()
    game = guest_game(client)
    guest = User.objects.get(is_guest=True)
    game, seats = read_game(game.pk)
    state = load_state(game, seats)
    mine = next(seat for seat in seats if seat.user_id == guest.pk)
    # The computer, if it drew the first seat, has moved already (its task ran at the commit).
    assert state.current_player() == mine.number
    tile = state.draw_tiles()[0]
    response = client.post(
        reverse("games:act", args=[game.pk]),
        {"type": "draft", "tile_id": tile, "version": game.version},
    )
    assert response.status_code in (200, 302)
    game.refresh_from_db()
    assert Event.objects.filter(game=game, kind="draft", actor=guest).exists()


def test_guests_are_limited_per_address(settings):
    settings.GUEST_RATE_LIMIT = "2/h/ip"
    for _ in range(2):
        assert play_now(Client(REMOTE_ADDR="198.51.100.4")).status_code == 302
    refused = play_now(Client(REMOTE_ADDR="198.51.100.4"))
    assert refused.status_code == 429
    assert "Try again in" in refused.content.decode()
    assert refused["Retry-After"]
    assert User.objects.filter(is_guest=True).count() == 2
    assert play_now(Client(REMOTE_ADDR="198.51.100.5")).status_code == 302


def test_a_guest_who_leaves_is_removed_with_their_games_and_the_computer_stays():
    client = Client()
    game = guest_game(client)
    bot = game.seats.get(user__bot_level="easy").user
    response = client.post(reverse("first_visit:leave"))
    assert response.status_code == 302
    assert not User.objects.filter(is_guest=True).exists()
    assert not Game.objects.filter(pk=game.pk).exists()
    assert not Event.objects.filter(game_id=game.pk).exists()
    assert User.objects.filter(pk=bot.pk).exists()
    assert "_auth_user_id" not in client.session


def test_the_sweep_removes_guests_after_seven_days_and_no_player(make_player):
    old_client, new_client = Client(), Client()
    old_game = guest_game(old_client)
    new_game = guest_game(new_client)
    player = make_player("ada")
    played = actions.create_game(creator=player, player_count=2, time_per_move=timedelta(days=1),
                                 bots=("easy",))  # fmt: skip
    old_guest = old_game.created_by
    User.objects.filter(pk=old_guest.pk).update(date_joined=timezone.now() - timedelta(days=8))
    User.objects.filter(pk=player.pk).update(date_joined=timezone.now() - timedelta(days=80))
    from games.tasks import sweep_guests

    assert sweep_guests.delay().get() == 1
    assert not User.objects.filter(pk=old_guest.pk).exists()
    assert not Game.objects.filter(pk=old_game.pk).exists()
    assert Game.objects.filter(pk=new_game.pk).exists()
    assert Game.objects.filter(pk=played.pk).exists()
    assert guests.remove_guest(player.pk) is False  # never a player's account
    assert User.objects.filter(pk=player.pk).exists()


def test_signing_up_keeps_the_guest_row_their_game_and_its_history(mailoutbox):
    client = Client()
    game = guest_game(client)
    guest = User.objects.get(is_guest=True)
    events_before = list(Event.objects.filter(game=game).values_list("pk", "kind"))
    seats_before = list(Seat.objects.filter(game=game).values_list("pk", "user_id", "number"))
    form = client.get(reverse("account_signup"))
    assert form.status_code == 200  # a guest is signed in, but may sign up
    response = client.post(
        reverse("account_signup"),
        {"username": "Zoe", "email": "zoe@example.com", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:800]
    assert response.url == reverse("account_email_verification_sent")
    zoe = User.objects.get(username="Zoe")
    assert zoe.pk == guest.pk and not zoe.is_guest
    assert zoe.check_password(PASSWORD) and zoe.email == "zoe@example.com"
    assert not EmailAddress.objects.get(user=zoe).verified  # confirmed as usual
    assert list(Event.objects.filter(game=game).values_list("pk", "kind")) == events_before
    assert list(Seat.objects.filter(game=game).values_list("pk", "user_id", "number")) == (
        seats_before
    )
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["zoe@example.com"]
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+/)", mailoutbox[0].body)
    client.get(link.group(1))  # confirms and signs in
    assert client.session["_auth_user_id"] == str(zoe.pk)
    archive = client.get(reverse("archive", args=["Zoe"]))
    assert archive.status_code == 200
    assert reverse("games:game", args=[game.pk]) in archive.content.decode()
    assert client.get(reverse("games:game", args=[game.pk])).status_code == 200
    assert client.get(reverse("accounts:settings")).status_code == 200  # a player now


def test_a_new_player_may_not_take_a_guest_s_name(client):
    response = client.post(
        reverse("account_signup"),
        {"username": "guest-abcdef", "email": "x@example.com", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 200
    assert not User.objects.filter(username__iexact="guest-abcdef").exists()


def test_a_player_may_press_play_now_too(client, make_player):
    ada = make_player("ada")
    client.force_login(ada)
    game = guest_game(client)
    assert game.created_by_id == ada.pk and not game.rated and not game.private
    assert not User.objects.filter(is_guest=True).exists()


def test_a_guest_s_ended_game_offers_sign_up_and_another_game_not_a_rematch():
    client = Client()
    game = guest_game(client)
    guest = User.objects.get(is_guest=True)
    actions.resign(game_id=game.pk, user=guest)  # a two-player game ends at once
    html = client.get(reverse("games:game", args=[game.pk])).content.decode()
    results = html.split('id="results"')[1]
    assert "Sign up to keep this game and its replay" in results
    assert reverse("games:rematch", args=[game.pk]) not in html
    home = client.get(reverse("home")).content.decode()
    assert "Play now against the computer" in home  # the ended game is not "continued"
