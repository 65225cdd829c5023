"""What a player may not do, refused with the right answer, and nothing changed.

Acting as another player (on their board or tray, on their draft, out of turn), acting in a game
one is not in or that is not running, forged or altered unsubscribe links, an undo link past its
week, made-up or borrowed invitation tokens. Each refusal is checked against the whole state of
every game (tests/security/conftest.py `state_of`), and where it makes sense a positive control
shows the same request from the right person is accepted.
"""

from datetime import timedelta

import pytest
import time_machine
from django.core import signing
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import unsubscribe
from accounts.forms import NOTIFICATION_FIELDS
from accounts.models import User
from games.models import Game

from .conftest import client_for, everything, state_of

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def post_move(browser, game, action: dict, version=None, **headers):
    data = {**action, "version": game.version if version is None else version}
    return browser.post(reverse("games:act", args=[game.pk]), data, **HTMX, **headers)


def refused(response, status: int, reason: str):
    """The refusal's status, with its reason in the answer for the page to show."""
    text = response.content.decode()
    assert response.status_code == status, (response.status_code, text[:300])
    assert 'role="alert"' in text
    assert reason in text, text[:2000]


def seats_of(game):
    """(user, client) of each seat of `game`, in seat order."""
    users = [seat.user for seat in game.seats.select_related("user").order_by("number")]
    return [(user, client_for(user)) for user in users]


# --- acting as another player --------------------------------------------------------------


def test_another_players_tray_tiles_and_board_spaces_are_out_of_reach(world):
    """A move names a tile or a space, never a seat: it acts on the mover's own board and tray,
    so the other player's tiles cannot be placed, turned, moved or taken back by it."""
    game = world.playing
    (first, first_client), (_, second_client) = seats_of(game)
    tile = game.pool["columns"][-1][0]
    assert post_move(first_client, game, {"type": "draft", "tile_id": tile}).status_code == 200
    game.refresh_from_db()
    assert post_move(first_client, game, {"type": "confirm_draft"}).status_code == 200
    game.refresh_from_db()
    # The first player's tile on their board at space 12; the second player's board is empty.
    place = {"type": "place", "tile_id": tile, "space": 12, "rotation": 0}
    assert post_move(first_client, game, place).status_code == 200
    game.refresh_from_db()
    before = state_of(game)

    for action, reason in [
        (place, "That tile is not in your tray."),
        ({**place, "seat": 0, "user": first.pk}, "That tile is not in your tray."),
        ({"type": "rotate", "space": 12, "quarter_turns": 1}, "There is no tile on that space."),
        ({"type": "return", "space": 12}, "There is no tile on that space."),
        ({"type": "move", "from_space": 12, "to_space": 13}, "There is no tile on that space."),
        ({"type": "swap", "space_a": 12, "space_b": 13}, "There is no tile on that space."),
    ]:
        refused(post_move(second_client, game, action), 422, reason)
        assert state_of(game) == before, action

    # The owner still can (the refusal was about who asked).
    response = post_move(first_client, game, {"type": "rotate", "space": 12, "quarter_turns": 1})
    assert response.status_code == 200


def test_another_players_pending_draft_cannot_be_confirmed_or_undone(world):
    game = world.playing
    (_, first_client), (_, second_client) = seats_of(game)
    tile = game.pool["columns"][-1][0]
    assert post_move(first_client, game, {"type": "draft", "tile_id": tile}).status_code == 200
    game.refresh_from_db()
    before = state_of(game)
    assert before["game"]["pending_draft"] is not None

    for kind in ("confirm_draft", "undo_draft"):
        refused(post_move(second_client, game, {"type": kind}), 422, "It is not your turn.")
        assert state_of(game) == before

    assert post_move(first_client, game, {"type": "confirm_draft"}).status_code == 200


def test_drafting_out_of_turn_is_refused(world):
    game = world.playing
    _, (_, second_client) = seats_of(game)
    before = state_of(game)

    for tile in game.pool["columns"][-1]:
        response = post_move(second_client, game, {"type": "draft", "tile_id": tile})
        refused(response, 422, "It is not your turn.")
    assert state_of(game) == before


EVERY_MOVE = [
    {"type": "draft", "tile_id": 0},
    {"type": "confirm_draft"},
    {"type": "undo_draft"},
    {"type": "place", "tile_id": 0, "space": 0, "rotation": 0},
    {"type": "rotate", "space": 0, "quarter_turns": 1},
    {"type": "move", "from_space": 0, "to_space": 1},
    {"type": "swap", "space_a": 0, "space_b": 1},
    {"type": "return", "space": 0},
    {"type": "clear"},
    {"type": "finish"},
]


def test_a_player_not_in_the_game_cannot_act_in_it(world):
    game = world.playing
    tile = game.pool["columns"][-1][0]
    outsider = client_for(world.players[4])
    before = state_of(game)

    for action in [{"type": "draft", "tile_id": tile}, *EVERY_MOVE]:
        response = post_move(outsider, game, action)
        refused(response, 403, "You are not playing in this game.")
        plain = outsider.post(
            reverse("games:act", args=[game.pk]), {**action, "version": game.version}
        )
        assert plain.status_code == 302  # back to the game, with the reason as a message
    assert state_of(game) == before
    page = outsider.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "You are not playing in this game." in page


def test_nobody_can_act_in_a_game_that_has_ended(world_with_ended):
    game = world_with_ended.ended
    before = state_of(game)
    for _, browser in seats_of(game):
        for action in EVERY_MOVE:
            refused(post_move(browser, game, action), 422, "This game is over.")
    assert state_of(game) == before


def test_nobody_can_act_at_a_table_still_waiting_for_players(world):
    game = world.open_table  # chloe is seated
    chloe = client_for(world.players[2])
    before = state_of(game)
    for action in EVERY_MOVE:
        refused(post_move(chloe, game, action), 403, "This game has not started yet.")
    assert state_of(game) == before


def test_a_plain_form_move_in_a_cancelled_game_goes_back_with_the_reason(world):
    game = world.cancelled  # created by ada
    ada = client_for(world.players[0])
    before = state_of(game)

    response = ada.post(
        reverse("games:act", args=[game.pk]), {"type": "clear", "version": game.version}
    )

    assert response.status_code == 302
    assert "This game is over." in ada.get(response.url).content.decode()
    assert state_of(game) == before


def test_an_htmx_move_in_a_cancelled_game_is_refused_not_a_server_error(world):
    game = world.cancelled
    ada = client_for(world.players[0])
    before = state_of(game)

    response = post_move(ada, game, {"type": "clear"})

    refused(response, 403, "This game is over.")  # as at a table that never started
    assert state_of(game) == before


def leaving_post(browser, view, game, **form):
    return browser.post(reverse(f"games:{view}", args=[game.pk]), form, **HTMX)


def test_nobody_resigns_or_votes_in_a_game_they_are_not_playing(world, world_with_ended):
    outsider = client_for(world.players[4])
    for game, status, reason in (
        (world.playing, 403, "You are not playing in this game."),
        (world_with_ended.ended, 403, "You are not playing in this game."),
    ):
        before = everything()
        refused(leaving_post(outsider, "resign", game), status, reason)
        refused(leaving_post(outsider, "expel", game, seat="0"), status, reason)
        assert everything() == before
    ended = seats_of(world_with_ended.ended)
    (_, first), _ = seats_of(world.playing)
    before = everything()  # after the log-ins
    for _, browser in ended:
        refused(leaving_post(browser, "resign", world_with_ended.ended), 422, "This game is over.")
    # No vote is open on a player who has not timed out twice in a row.
    refused(leaving_post(first, "expel", world.playing, seat="1"), 422, "There is no vote")
    assert everything() == before


# --- the lobby -----------------------------------------------------------------------------


def lobby_post(browser, view, game, **form):
    """A lobby form: back to the game page; return that page (or its 404)."""
    return browser.post(reverse(f"games:{view}", args=[game.pk]), form, follow=True)


WRONG_PERSON_OR_TIME = [
    ("esme", "start", "open_table", "Only the game's creator can start it."),
    ("esme", "cancel", "open_table", "Only the game's creator can cancel it."),
    ("chloe", "leave", "open_table", "You created this game: cancel it instead."),
    ("esme", "leave", "open_table", "You have no seat at this table."),
    ("chloe", "join", "open_table", "You already have a seat at this table."),
    ("esme", "invite", "open_table", "Only a player at this table can invite."),
    ("esme", "join", "playing", "This game has already started or is closed."),
    ("ada", "cancel", "playing", "This game has already started or is closed."),
    ("ada", "leave", "playing", "This game has already started or is closed."),
    ("ada", "start", "cancelled", "This game has already started or is closed."),
    ("esme", "join", "cancelled", "This game has already started or is closed."),
]


def test_lobby_requests_from_the_wrong_person_or_at_the_wrong_time(world):
    browsers = {user.username: client_for(user) for user in world.players}
    before = everything()
    for who, view, where, reason in WRONG_PERSON_OR_TIME:
        game = getattr(world, where)

        page = lobby_post(browsers[who], view, game, username="brian")

        assert page.status_code == 200, (who, view, where)
        assert page.redirect_chain == [(reverse("games:game", args=[game.pk]), 302)]
        assert escape(reason) in page.content.decode(), (who, view, where)
    assert everything() == before


# --- invitations ---------------------------------------------------------------------------


def test_an_invitation_table_takes_no_one_without_the_invitation_or_its_own_link(world):
    table, other = world.invitation_table, world.open_table
    esme = client_for(world.players[4])
    before = everything()

    attempts = [
        lobby_post(esme, "join", table),  # no token
        lobby_post(esme, "join", table, token="made-up-token-of-24-char"),
        lobby_post(esme, "join", table, token=other.invite_token),  # another game's link
        lobby_post(esme, "join", table, token=table.invite_token.upper()),  # altered
        lobby_post(esme, "join", table, token=table.invite_token[:-1]),
    ]
    for page in attempts:
        # A table that does not reveal itself to those not invited: not found, as a missing one.
        assert page.redirect_chain == []
        assert page.status_code == 404
    genuine = table.invite_token
    altered = genuine[:-1] + ("y" if genuine.endswith("x") else "x")  # one character off
    for token in ("made-up-token-of-24-char", altered):
        assert esme.get(reverse("games:join_by_link", args=[token])).status_code == 404
        assert esme.post(reverse("games:join_by_link", args=[token])).status_code == 404
    assert everything() == before

    # The table's own link, and an invitation, do let a player in.
    link = reverse("games:join_by_link", args=[table.invite_token])
    assert "Take a seat" in esme.get(link).content.decode()
    assert esme.post(link).status_code == 302
    brian = client_for(world.players[1])  # invited by name
    lobby_post(brian, "join", table)
    assert set(table.seats.values_list("user__username", flat=True)) == {"dmitri", "esme", "brian"}


def test_a_link_of_a_game_that_has_started_or_was_cancelled_seats_no_one(world):
    esme = client_for(world.players[4])
    before = everything()
    for game in (world.playing, world.cancelled):
        link = reverse("games:join_by_link", args=[game.invite_token])
        page = esme.post(link, follow=True)
        assert page.redirect_chain == [(reverse("games:game", args=[game.pk]), 302)]
        assert "This game has already started or is closed." in page.content.decode()
    assert everything() == before


# --- unsubscribe links ---------------------------------------------------------------------


def switches(user) -> dict:
    return User.objects.filter(pk=user.pk).values(*NOTIFICATION_FIELDS).get()


TOKEN_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:."


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_alteration_of_a_genuine_unsubscribe_link_is_refused(players, data):
    victim = players[0]
    genuine = unsubscribe.make_token(victim, "all")
    position = data.draw(st.integers(0, len(genuine) - 1), label="position")
    how = data.draw(st.sampled_from(["replace", "delete", "insert", "truncate", "swap case"]))
    character = data.draw(st.sampled_from(TOKEN_CHARACTERS), label="character")
    token = {
        "replace": genuine[:position] + character + genuine[position + 1 :],
        "delete": genuine[:position] + genuine[position + 1 :],
        "insert": genuine[:position] + character + genuine[position:],
        "truncate": genuine[:position],
        "swap case": genuine[:position] + genuine[position].swapcase() + genuine[position + 1 :],
    }[how]
    if token == genuine:
        return
    before = switches(victim)

    for method in ("get", "post"):
        response = getattr(client_for(), method)(f"/unsubscribe/{token}/")
        assert response.status_code in {400, 404}, (how, position, token)
    assert switches(victim) == before


def test_the_two_kinds_of_link_cannot_stand_in_for_each_other(players):
    player = players[1]
    page = client_for().post(f"/unsubscribe/{unsubscribe.make_token(player, 'all')}/")
    undo = signing.dumps({"u": player.pk, "before": {"email_your_turn": True}}, salt="x")
    genuine_undo = page.context["undo_token"]
    after_unsubscribe = switches(player)

    # An undo token as an unsubscribe link, an unsubscribe token as an undo link.
    assert client_for().get(f"/unsubscribe/{genuine_undo}/").status_code == 400
    assert client_for().post(f"/unsubscribe/{genuine_undo}/").status_code == 400
    unsubscribe_token = unsubscribe.make_token(player, "your_turn")
    assert client_for().post(f"/unsubscribe/{unsubscribe_token}/undo/").status_code == 400
    assert client_for().post(f"/unsubscribe/{undo}/undo/").status_code == 400
    assert switches(player) == after_unsubscribe


def test_the_undo_link_works_for_a_week_and_not_after(players):
    player = players[2]
    before = switches(player)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        page = client_for().post(f"/unsubscribe/{unsubscribe.make_token(player, 'all')}/")
        undo = f"/unsubscribe/{page.context['undo_token']}/undo/"
        unsubscribed = switches(player)
        assert set(unsubscribed.values()) == {False}

        clock.shift(timedelta(days=7, minutes=1))
        response = client_for().post(undo)

        assert response.status_code == 400
        assert b"This link does not work" in response.content
        assert switches(player) == unsubscribed

        # The same link within the week puts everything back (the refusal was the age).
        clock.shift(-timedelta(days=1))
        assert client_for().post(undo).status_code == 200
        assert switches(player) == before


def test_a_link_for_an_account_that_no_longer_exists_is_refused(players):
    gone = User.objects.create_user("gone", "gone@example.com", "x-long-passphrase-1")
    token = unsubscribe.make_token(gone, "all")
    gone.delete()

    assert client_for().get(f"/unsubscribe/{token}/").status_code == 400
    assert client_for().post(f"/unsubscribe/{token}/").status_code == 400


def test_an_unsubscribe_link_is_only_ever_for_its_own_recipient(players, start_game):
    """A genuine link, followed by someone else while signed in, still unsubscribes only the
    player it was made for (the link names its recipient, not whoever follows it)."""
    victim, follower = players[0], players[1]
    others_before = switches(follower)

    client_for(follower).post(f"/unsubscribe/{unsubscribe.make_token(victim, 'game_over')}/")

    assert switches(victim)["email_game_over"] is False
    assert switches(follower) == others_before


def test_a_started_game_cannot_be_joined_even_with_its_own_token_by_the_form(world):
    game = world.playing
    esme = client_for(world.players[4])
    before = state_of(game)

    page = lobby_post(esme, "join", game, token=game.invite_token)

    assert "This game has already started or is closed." in page.content.decode()
    assert state_of(game) == before
    assert Game.objects.get(pk=game.pk).seats.count() == 2


# --- forged cross-site requests ------------------------------------------------------------


def test_a_request_forged_by_another_site_changes_nothing(world):
    """A form on another site posting with the player's cookies has no CSRF token: refused."""
    game, table = world.playing, world.open_table
    first = world.seat_user(game, 0)
    tile, v = game.pool["columns"][-1][0], game.version
    browser = client_for(first)
    browser.handler.enforce_csrf_checks = True
    before = everything()

    for path, form in [
        (reverse("games:act", args=[game.pk]), {"type": "draft", "tile_id": tile, "version": v}),
        (reverse("games:join", args=[table.pk]), {}),
        (reverse("games:create"), {"name": "x", "player_count": 2, "time_per_move": "1d"}),
        (reverse("games:invite", args=[game.pk]), {"username": "esme"}),
        (reverse("accounts:settings"), {"time_zone": "UTC"}),
        (reverse("vacation"), {"days": "3"}),
        (reverse("account_logout"), {}),
    ]:
        response = browser.post(
            path, form, HTTP_HX_REQUEST="true", HTTP_ORIGIN="https://evil.example"
        )
        assert response.status_code == 403, path
    assert everything() == before
    assert browser.get(reverse("dashboard")).status_code == 200  # still signed in
