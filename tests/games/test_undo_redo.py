"""Undo and Redo of arranging on the site: kept on the server (so another tab or device sees the
same history), refused as stale when the board changed elsewhere, drawn as buttons that say
whether there is something to undo or redo."""

import re

import pytest
from django.urls import reverse

from games import rules
from games.models import Seat
from games.play import actions
from games.play.errors import ActionRefused, StaleVersion

from .playing import current_state
from .test_views import HTMX, act, client_for, create_and_fill, shown_version

pytestmark = pytest.mark.django_db


def drafted(game, committed):
    """Seat 0 drafts and confirms the top tile; return (its user, the tile)."""
    state = current_state(game)
    user = game.seats.get(number=state.current).user
    tile = state.draw_tiles()[0]
    committed(actions.play, game_id=game.pk, user=user, action=rules.Draft(tile), seen_version=None)
    committed(
        actions.play, game_id=game.pk, user=user, action=rules.ConfirmDraft(), seen_version=None
    )
    return user, tile


def button(page: str, button_id: str) -> str:
    return re.search(rf'<button[^>]*id="{button_id}"[^>]*>', page).group(0)


def test_undo_and_redo_step_through_the_board_and_are_recorded(start_game, committed):
    game = start_game(2)
    user, tile = drafted(game, committed)
    seat = game.seats.get(user=user)

    def play(action):
        game.refresh_from_db()
        return committed(
            actions.play, game_id=game.pk, user=user, action=action, seen_version=game.version
        )

    play(rules.Place(tile, 12, 0))
    play(rules.Rotate(12))
    play(rules.Move(12, 6))
    play(rules.Undo())
    assert current_state(game).boards[seat.number].cells[12] == rules.Placed(tile, 1)
    play(rules.Undo())
    assert current_state(game).boards[seat.number].cells[12] == rules.Placed(tile, 0)
    play(rules.Redo())
    assert current_state(game).boards[seat.number].cells[12] == rules.Placed(tile, 1)
    seat.refresh_from_db()
    assert len(seat.undo) == 2 and len(seat.redo) == 1  # kept on the seat's row
    kinds = list(game.events.order_by("number").values_list("kind", flat=True))[-6:]
    assert kinds == ["place", "rotate", "move", "undo", "undo", "redo"]
    # The event log replays to the stored state, histories included.
    from games.history.replay import rebuild_state

    assert rebuild_state(game) == current_state(game)


def test_undo_from_a_tab_that_missed_a_change_to_its_board_is_refused_as_stale(
    start_game, committed
):
    game = start_game(2)
    user, tile = drafted(game, committed)
    game.refresh_from_db()
    committed(actions.play, game_id=game.pk, user=user, action=rules.Place(tile, 0, 0),
              seen_version=game.version)  # fmt: skip
    game.refresh_from_db()
    other_tab = game.version
    committed(actions.play, game_id=game.pk, user=user, action=rules.Rotate(0),
              seen_version=game.version)  # fmt: skip

    with pytest.raises(StaleVersion):
        actions.play(game_id=game.pk, user=user, action=rules.Undo(), seen_version=other_tab)
    number = game.seats.get(user=user).number
    assert current_state(game).boards[number].cells[0] == rules.Placed(tile, 1)  # not undone


def test_nothing_to_undo_is_a_clear_refusal(start_game):
    game = start_game(2)
    user = game.seats.get(number=0).user
    with pytest.raises(ActionRefused, match="no change to your board to undo") as refused:
        actions.play(game_id=game.pk, user=user, action=rules.Undo(), seen_version=None)
    assert refused.value.code == "nothing_to_undo"


def test_the_buttons_say_whether_there_is_something_to_undo_or_redo(players):
    game = create_and_fill(players, 2)
    seat = game.seats.get(number=0)
    client = client_for(seat.user)
    tile = game.pool["columns"][-1][0]
    act(client, game.pk, {"type": "draft", "tile_id": tile}, game.version)
    act(client, game.pk, {"type": "confirm_draft"}, shown_version(client, game.pk))
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "disabled" in button(page, "undo-arranging")
    assert "disabled" in button(page, "redo-arranging")

    placed = act(client, game.pk, {"type": "place", "tile_id": tile, "space": 7},
                 shown_version(client, game.pk)).content.decode()  # fmt: skip
    assert "disabled" not in button(placed, "undo-arranging")  # the answer draws it
    assert "disabled" in button(placed, "redo-arranging")

    undone = act(client, game.pk, {"type": "undo"}, shown_version(client, game.pk))
    assert undone.status_code == 200
    page = undone.content.decode()
    assert "disabled" in button(page, "undo-arranging")
    assert "disabled" not in button(page, "redo-arranging")
    assert Seat.objects.get(pk=seat.pk).board[7] is None

    # A second tab that still shows the placement is refused, and shown the board as it is.
    stale = act(client, game.pk, {"type": "undo"}, shown_version(client, game.pk) - 1)
    assert stale.status_code == 409
    assert "The game has moved on" in stale.content.decode()
    redone = act(client, game.pk, {"type": "redo"}, shown_version(client, game.pk))
    assert redone.status_code == 200
    assert Seat.objects.get(pk=seat.pk).board[7] == [tile, 0]


def test_an_opponent_sees_no_undo_buttons_of_yours(players):
    game = create_and_fill(players, 2)
    watcher = client_for(game.seats.get(number=1).user)
    page = watcher.get(reverse("games:game", args=[game.pk]), **HTMX).content.decode()
    assert page.count('id="undo-arranging"') == 1  # their own board's only


def test_clearing_an_empty_board_changes_nothing_and_records_nothing(players):
    """A change that changes nothing is answered and leaves no trace (issue 20: it was recorded
    as an event, a new version for every page)."""
    game = create_and_fill(players, 2)
    client = client_for(game.seats.get(number=0).user)
    before = game.version
    answer = act(client, game.pk, {"type": "clear"}, before)
    assert answer.status_code == 204
    game.refresh_from_db()
    assert game.version == before and not game.events.filter(kind="clear").exists()
    # With something on the board it is a change like any other.
    tile = game.pool["columns"][-1][0]
    act(client, game.pk, {"type": "draft", "tile_id": tile}, game.version)
    act(client, game.pk, {"type": "place", "tile_id": tile, "space": 3},
        shown_version(client, game.pk))  # fmt: skip
    assert (
        act(client, game.pk, {"type": "clear"}, shown_version(client, game.pk)).status_code == 200
    )
    assert game.events.filter(kind="clear").count() == 1
