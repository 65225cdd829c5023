"""The game through its HTTP endpoints only, as a browser with htmx would drive it."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games import rules
from games.models import Game
from games.play import actions
from games.play.lobby_views import OPEN_TABLES_PER_PAGE
from games.rules.analysis import legal_spots

from .playing import next_move

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def shown_version(client, game_id):
    page = client.get(reverse("games:fragment", args=[game_id]), **HTMX).content.decode()
    return int(re.search(r'data-version="(\d+)"', page).group(1))


def act(client, game_id, action, version, **extra):
    return client.post(
        reverse("games:act", args=[game_id]), {**action, "version": version}, **HTMX, **extra
    )


def create_and_fill(players, count):
    creator = client_for(players[0])
    response = creator.post(
        reverse("games:create"),
        {
            "name": "Table",
            "player_count": count,
            "time_per_move": "1d",
            "rated": "on",
            "access": "open",
        },
    )
    assert response.status_code == 302
    game = Game.objects.get()
    for player in players[1:count]:
        assert client_for(player).post(reverse("games:join", args=[game.pk])).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    return game


@pytest.mark.slow
@pytest.mark.parametrize("count", [2, 5])
def test_a_whole_game_through_http_ends_with_the_right_results(
    count, players, django_capture_on_commit_callbacks
):
    game = create_and_fill(players, count)
    clients = {seat.number: client_for(seat.user) for seat in game.seats.all()}

    while (move := next_move(game)) is not None:
        seat, action = move
        client = clients[seat]
        with django_capture_on_commit_callbacks(execute=True):
            response = act(client, game.pk, action.to_json(), shown_version(client, game.pk))
        assert response.status_code == 200, response.content.decode()[:500]

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    page = clients[0].get(reverse("games:game", args=[game.pk])).content.decode()
    assert "Results" in page
    for seat in game.seats.select_related("user"):
        assert seat.user.username in page
    ranking = sorted(game.seats.all(), key=lambda seat: seat.place)
    positions = [page.index(f"<td>{seat.user.username}</td>") for seat in ranking]
    assert positions == sorted(positions)


def test_the_game_page_shows_pool_boards_turn_and_time_left(players):
    game = create_and_fill(players, 3)
    first = game.seats.get(number=0).user

    page = client_for(first).get(reverse("games:game", args=[game.pk])).content.decode()

    assert "Your turn:" in page
    assert "draw-column" in page
    assert page.count('class="board"') == 3
    assert "Time left:" in page
    assert page.count("Draft the ") == 5


def test_a_non_player_sees_the_game_read_only_and_cannot_act(players):
    game = create_and_fill(players, 2)
    outsider = client_for(players[4])

    page = outsider.get(reverse("games:game", args=[game.pk])).content.decode()
    response = act(outsider, game.pk, {"type": "clear"}, game.version)

    assert "hx-post" not in page
    assert "Draft the" not in page
    assert response.status_code == 403
    assert "You are not playing in this game." in response.content.decode()
    assert game.events.count() == Game.objects.get().events.count()


def test_the_wrong_player_is_refused_beside_the_cause_and_nothing_changes(players):
    game = create_and_fill(players, 2)
    second = client_for(game.seats.get(number=1).user)
    tile = game.pool["columns"][-1][0]

    response = act(second, game.pk, {"type": "draft", "tile_id": tile}, game.version)

    assert response.status_code == 422
    assert "It is not your turn." in response.content.decode()
    assert Game.objects.get().version == game.version


def test_a_stale_page_gets_a_409_and_the_current_game(players, django_capture_on_commit_callbacks):
    game = create_and_fill(players, 2)
    first = client_for(game.seats.get(number=0).user)
    second = client_for(game.seats.get(number=1).user)
    stale = game.version
    tiles = game.pool["columns"][-1]
    act(first, game.pk, {"type": "draft", "tile_id": tiles[0]}, stale)
    act(first, game.pk, {"type": "confirm_draft"}, shown_version(first, game.pk))

    response = act(second, game.pk, {"type": "draft", "tile_id": tiles[1]}, stale)

    assert response.status_code == 409
    body = response.content.decode()
    assert "The game has moved on" in body
    assert f'data-version="{Game.objects.get().version}"' in body


@pytest.mark.parametrize(
    "data",
    [
        {"type": "launch_rockets"},
        {"type": "place", "tile_id": "seven", "space": 3},
        {"type": "place", "tile_id": 3, "space": 99},
        {"type": "draft"},
        {"type": "rotate", "space": 0, "quarter_turns": 9},
    ],
)
def test_bad_input_gets_a_clear_400_not_a_server_error(players, data):
    game = create_and_fill(players, 2)
    first = client_for(game.seats.get(number=0).user)

    response = act(first, game.pk, data, game.version)

    assert response.status_code in (400, 422)
    assert 'role="alert"' in response.content.decode()
    assert Game.objects.get().version == game.version


def test_without_htmx_an_action_redirects_back_to_the_game(players):
    game = create_and_fill(players, 2)
    first = client_for(game.seats.get(number=0).user)
    tile = game.pool["columns"][-1][0]

    response = first.post(
        reverse("games:act", args=[game.pk]),
        {"type": "draft", "tile_id": tile, "version": game.version},
    )

    assert response.status_code == 302
    assert response.url == reverse("games:game", args=[game.pk])


def test_selecting_a_tray_tile_lights_the_spaces_where_it_fits(players, monkeypatch):
    # Not every tile fits on an empty board: deal a game whose top draw tile does (found with
    # the rules alone), so the test does not depend on the luck of the draw.
    def fitting_spaces(seed):
        state = rules.new_game(2, seed)
        tile = state.draw_tiles()[0]
        return {space for space, _ in legal_spots(state.boards[0], tile)}

    seed = next(seed for seed in range(1000) if fitting_spaces(seed))
    monkeypatch.setattr(actions.tables.secrets, "randbits", lambda bits: seed)
    game = create_and_fill(players, 2)
    first = client_for(game.seats.get(number=0).user)
    tile = game.pool["columns"][-1][0]
    act(first, game.pk, {"type": "draft", "tile_id": tile}, game.version)

    page = first.get(reverse("games:game", args=[game.pk]) + f"?sel=t{tile}").content.decode()

    assert page.count("(fits)") == len(fitting_spaces(seed))
    assert page.count("Place it on the ") == 25
    assert "Confirm draft" in page and "Undo" in page


def test_lobby_lists_open_games_with_filters_and_the_dashboard_puts_your_turn_first(players):
    ada = client_for(players[0])
    ada.post(
        reverse("games:create"),
        {"player_count": 3, "time_per_move": "1h", "access": "open", "name": "Three"},
    )
    ada.post(
        reverse("games:create"),
        {"player_count": 2, "time_per_move": "7d", "access": "open", "rated": "on", "name": "Two"},
    )
    ada.post(
        reverse("games:create"),
        {"player_count": 2, "time_per_move": "7d", "access": "invitation", "name": "Secret"},
    )

    brian = client_for(players[1])
    lobby = brian.get(reverse("games:lobby")).content.decode()
    filtered = brian.get(reverse("games:lobby") + "?player_count=3").content.decode()
    rated = brian.get(reverse("games:lobby") + "?rated=yes").content.decode()

    assert "Three" in lobby and "Two" in lobby and "Secret" not in lobby
    assert "Three" in filtered and "Two" not in filtered
    assert "Two" in rated and "Three" not in rated

    two = Game.objects.get(name="Two")
    brian.post(reverse("games:join", args=[two.pk]))
    two.refresh_from_db()
    on_turn = two.seats.get(number=0).user
    dashboard = client_for(on_turn).get(reverse("dashboard")).content.decode()
    assert "Your turn" in dashboard


def test_the_lobby_shows_the_newest_open_tables_a_page_at_a_time_keeping_its_filters(players):

    for number in range(OPEN_TABLES_PER_PAGE + 2):
        actions.create_game(
            creator=players[0],
            player_count=2,
            time_per_move=timedelta(days=1),
            name=f"Table {number:02d}",
        )
    brian = client_for(players[1])

    first = brian.get(reverse("games:lobby") + "?player_count=2").content.decode()
    second = brian.get(reverse("games:lobby") + "?player_count=2&page=2").content.decode()

    shown = [re.findall(r">Table (\d\d)<", page) for page in (first, second)]
    newest_first = [f"{n:02d}" for n in reversed(range(OPEN_TABLES_PER_PAGE + 2))]
    assert shown == [newest_first[:OPEN_TABLES_PER_PAGE], newest_first[OPEN_TABLES_PER_PAGE:]]
    assert "Page 1 of 2" in first and 'href="?player_count=2&amp;page=2"' in first


def test_invitation_link_lets_a_player_join_and_a_forged_one_is_refused(players):
    ada = client_for(players[0])
    ada.post(
        reverse("games:create"), {"player_count": 3, "time_per_move": "1d", "access": "invitation"}
    )
    game = Game.objects.get()
    brian = client_for(players[1])

    assert brian.get(reverse("games:game", args=[game.pk])).status_code == 404
    assert brian.get(reverse("games:join_by_link", args=["forged-token"])).status_code == 404
    assert brian.get(reverse("games:join_by_link", args=[game.invite_token])).status_code == 200
    brian.post(reverse("games:join_by_link", args=[game.invite_token]))
    assert game.seats.filter(user=players[1]).exists()

    ada.post(reverse("games:invite", args=[game.pk]), {"username": "chloe"})
    chloe = client_for(players[2])
    assert "Invitations" in chloe.get(reverse("dashboard")).content.decode()
    assert chloe.get(reverse("games:game", args=[game.pk])).status_code == 200
    chloe.post(reverse("games:join", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
