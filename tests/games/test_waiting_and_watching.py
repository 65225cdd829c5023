"""The waiting room's page and what its changes push; the lobby's list of games to watch."""

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import lobby
from games.drawing import updates
from games.live import pushes
from games.models import Game
from games.play import actions
from games.play.errors import ActionRefused

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def new_table(creator, count=3, **options):
    options.setdefault("time_per_move", timedelta(days=1))
    return actions.create_game(creator=creator, player_count=count, **options)


@pytest.fixture
def lobby_pushes(monkeypatch):
    """The waiting-room pushes the changes send, as (kind, version, seats) once committed."""
    sent = []

    def send(messages):
        for _, event in messages:
            if event["type"] == "game.lobby_changed":
                seats = tuple(tuple(seat) for seat in event["seats"])
                sent.append((event["kind"], event["version"], seats))
        return True

    monkeypatch.setattr(pushes, "send", send)
    return sent


def test_the_waiting_room_opens_the_tables_socket_with_its_seats_version(players):
    ada, brian = players[:2]
    game = new_table(ada)
    page = client_for(ada).get(reverse("games:game", args=[game.pk])).content.decode()

    assert f'ws-connect="/ws/games/{game.pk}/"' in page
    assert re.search(rf'<div id="seats" class="seats" data-version="{game.version}"', page)
    # The creator's buttons are in the pushed partial; their forms (with the CSRF token) are not.
    # Alone at the table, there is nothing to start: no Start now, greyed or not.
    assert "Start now" not in page and 'form="cancel-form"' in page
    assert re.search(r'<form id="start-form" method="post" [^>]*><input type="hidden"', page)
    watcher = client_for(brian).get(reverse("games:game", args=[game.pk])).content.decode()
    assert f'ws-connect="/ws/games/{game.pk}/"' in watcher
    assert "Take a seat" in watcher and "Start now" not in watcher


def test_a_visitor_with_the_link_to_an_invitation_table_gets_no_live_seats(players):
    ada, brian = players[:2]
    game = new_table(ada, access=Game.Access.INVITATION)
    link = reverse("games:join_by_link", args=[game.invite_token])

    page = client_for(brian).get(link).content.decode()

    assert "Take a seat" in page
    assert f"/ws/games/{game.pk}/" not in page  # they may not watch it (yet): their own socket
    assert 'ws-connect="/ws/live/"' in page

    actions.join_game(game_id=game.pk, user=brian, invite_token=game.invite_token)
    actions.start_game(game_id=game.pk, user=ada)
    late = client_for(players[2]).get(link)  # the link of a game that started: the game itself
    assert late.status_code == 302 and late.url == reverse("games:game", args=[game.pk])


def test_each_lobby_change_pushes_its_seats_once_after_the_commit(
    players, lobby_pushes, django_capture_on_commit_callbacks
):
    ada, brian, chloe = players[:3]
    with django_capture_on_commit_callbacks(execute=True):
        game = new_table(ada)
        actions.join_game(game_id=game.pk, user=brian)
        actions.leave_game(game_id=game.pk, user=brian)
        actions.invite_player(game_id=game.pk, inviter=ada, username="dmitri")  # no seat changed
        actions.join_game(game_id=game.pk, user=brian)
        actions.join_game(game_id=game.pk, user=chloe)  # the last seat: it starts
    game.refresh_from_db()

    kinds = [kind for kind, _, _ in lobby_pushes]
    assert kinds == ["joined", "left", "joined", "started"]
    assert lobby_pushes[-1][1] == game.version  # the join and the start: one push, the start's
    by_number = {number: user_id for number, user_id, _ in lobby_pushes[-1][2]}
    assert by_number == dict(game.seats.values_list("number", "user_id"))  # the drawn order

    other = new_table(ada)
    lobby_pushes.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.join_game(game_id=other.pk, user=brian)
        actions.start_game(game_id=other.pk, user=ada)
        cancelled = new_table(ada)
        actions.cancel_game(game_id=cancelled.pk, user=ada)
    assert [kind for kind, _, _ in lobby_pushes] == ["joined", "started", "cancelled"]


def test_a_refused_or_rolled_back_change_pushes_nothing(
    players, lobby_pushes, django_capture_on_commit_callbacks
):
    ada, brian = players[:2]
    game = new_table(ada, access=Game.Access.INVITATION)
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(ActionRefused):
            actions.join_game(game_id=game.pk, user=brian)  # not invited
        with pytest.raises(ActionRefused):
            actions.start_game(game_id=game.pk, user=ada)  # alone
        with pytest.raises(RuntimeError), transaction.atomic():
            actions.join_game(game_id=game.pk, user=brian, invite_token=game.invite_token)
            raise RuntimeError("the outer transaction rolls back")
    assert lobby_pushes == []


def playing_table(creator, others, *, access=Game.Access.OPEN, name="", turn_at=None):
    game = new_table(creator, count=len(others) + 1, access=access, name=name)
    for user in others:
        actions.join_game(game_id=game.pk, user=user, invite_token=game.invite_token)
    if turn_at is not None:
        Game.objects.filter(pk=game.pk).update(turn_started_at=turn_at)
    game.refresh_from_db()
    return game


def test_games_to_watch_are_the_running_ones_a_viewer_may_see_latest_turn_first(players):
    ada, brian, chloe, dmitri, esme = players
    now = timezone.now()
    old = playing_table(ada, [brian], name="Old", turn_at=now - timedelta(hours=5))
    new = playing_table(chloe, [dmitri], name="New", turn_at=now - timedelta(minutes=1))
    secret = playing_table(ada, [brian], access=Game.Access.INVITATION, name="Secret", turn_at=now)
    actions.invite_player(game_id=new_table(ada).pk, inviter=ada, username="esme")  # waiting
    invited = new_table(ada, count=2, access=Game.Access.INVITATION, name="Invited")
    actions.invite_player(game_id=invited.pk, inviter=ada, username="esme")
    actions.join_game(game_id=invited.pk, user=chloe, invite_token=invited.invite_token)
    Game.objects.filter(pk=invited.pk).update(turn_started_at=now - timedelta(hours=9))
    over = playing_table(esme, [dmitri], name="Over")
    Game.objects.filter(pk=over.pk).update(status=Game.Status.ENDED)

    def shown(user):
        return [game.pk for game in lobby.games_to_watch(user)]

    assert shown(esme) == [new.pk, old.pk, invited.pk]  # invited to a private one: hers too
    assert shown(brian) == [secret.pk, new.pk, old.pk]  # his own private table
    assert shown(dmitri) == [new.pk, old.pk]  # nothing private of his
    assert [game.pk for game in lobby.games_to_watch(dmitri, limit=1)] == [new.pk]


def test_games_to_watch_cost_two_queries_however_many(players, django_assert_num_queries):
    ada, brian, chloe = players[:3]
    for _ in range(2):
        playing_table(ada, [brian])
    with django_assert_num_queries(2):
        few = [len(game.seats.all()) for game in lobby.games_to_watch(chloe)]
    for _ in range(5):
        playing_table(ada, [brian, chloe])
    with django_assert_num_queries(2):
        many = [len(game.seats.all()) for game in lobby.games_to_watch(chloe)]
    assert len(few) == 2 and len(many) == 7


def test_the_lobby_shows_games_in_progress_with_players_and_whose_turn(players):
    ada, brian, chloe = players[:3]
    game = playing_table(ada, [brian], name="Watch me")
    playing_table(ada, [brian], access=Game.Access.INVITATION, name="Private")
    first = game.seats.select_related("user").get(number=game.current_seat).user

    page = client_for(chloe).get(reverse("games:lobby")).content.decode()
    watch = page[page.index('id="watch-heading"') :]

    assert "Watch me" in watch and "Private" not in watch
    assert f"<strong>{first.username}</strong>" in watch
    assert f"{first.username}'s turn" in watch
    own = client_for(first).get(reverse("games:lobby")).content.decode()
    assert "Your turn" in own[own.index('id="watch-heading"') :]
    assert "Private" in own


def test_a_waiting_rooms_push_is_drawn_with_two_queries_per_viewer(
    players, django_assert_num_queries
):
    ada, brian, chloe = players[:3]
    game = new_table(ada, count=5)
    for user in (brian, chloe):
        actions.join_game(game_id=game.pk, user=user)

    with django_assert_num_queries(2):
        lobby = updates.draw_lobby(game.pk, ada)
    assert lobby.version == game.version + 2 and not lobby.started
    assert lobby.html.count('class="free"') == 2 and "Start now with 3 players" in lobby.html
    assert updates.draw_lobby(999_999, ada) is None
