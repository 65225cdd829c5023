"""The table option "Finish needs every placed path closed (as in the online edition)": chosen at
creation, shown on the table's pages, enforced by the rules for the player, the finishing deadline
and the computer players."""

from datetime import timedelta

import pytest
from django.urls import reverse

from games import rules, tasks
from games.models import Event, Game
from games.play import actions
from games.play.errors import ActionRefused

from .playing import current_state
from .test_views import act, client_for

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def draft_to_the_finishing(game, committed):
    from .playing import draft_the_top_tile

    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    game.refresh_from_db()


def place_an_open_tile(game, number, committed):
    """Place a legal tile of seat `number` that leaves a path open; return its space."""
    state = current_state(game)
    user = game.seats.get(number=number).user
    for tile in state.trays[number]:
        for space, rotation in rules.legal_spots(state.boards[number], tile):
            board = state.boards[number].with_cells({space: rules.Placed(tile, rotation)})
            if rules.markers(board).open_path:
                action = rules.Place(tile, space, rotation)
                committed(
                    actions.play, game_id=game.pk, user=user, action=action, seen_version=None
                )
                return space
    raise AssertionError("no open placement")


def test_the_option_is_chosen_on_the_form_and_shown_on_the_tables_pages(players):
    creator = client_for(players[0])
    form = creator.get(reverse("games:create")).content.decode()
    assert "Finish needs every placed path closed (as in the online edition)" in form
    response = creator.post(
        reverse("games:create"),
        {"name": "Closed", "player_count": 2, "time_per_move": "1d", "access": "open",
         "strict_finish": "on"},
    )  # fmt: skip
    assert response.status_code == 302
    game = Game.objects.get(name="Closed")
    assert game.strict_finish
    lobby = client_for(players[1]).get(reverse("games:lobby")).content.decode()
    assert "finish with every path closed" in lobby
    waiting = creator.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "Finish needs every placed path closed" in waiting
    client_for(players[1]).post(reverse("games:join", args=[game.pk]))
    page = creator.get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'id="strict-finish"' in page
    assert game.events.get(kind="started").data["strict_finish"] is True
    # Off by default: the rulebook's reading.
    lenient = {"name": "Open", "player_count": 2, "time_per_move": "1d", "access": "open"}
    creator.post(reverse("games:create"), lenient)
    assert not Game.objects.get(name="Open").strict_finish


def test_finish_is_refused_with_the_open_paths_named(start_game, committed):
    game = start_game(2, strict_finish=True)
    draft_to_the_finishing(game, committed)
    space = place_an_open_tile(game, 0, committed)
    user = game.seats.get(number=0).user
    where = f"row {space // 5 + 1}, column {space % 5 + 1}"

    client = client_for(user)
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert f"every placed path must be closed to finish: open at {where}" in page
    game.refresh_from_db()
    refused = act(client, game.pk, {"type": "finish"}, game.version)
    assert refused.status_code == 422
    assert where in refused.content.decode()
    with pytest.raises(ActionRefused) as refusal:
        actions.play(game_id=game.pk, user=user, action=rules.Finish(), seen_version=None)
    assert refusal.value.code == "open_paths_on_board" and refusal.value.space == space
    assert not game.seats.get(number=0).finished

    committed(
        actions.play, game_id=game.pk, user=user, action=rules.Return(space), seen_version=None
    )
    committed(actions.play, game_id=game.pk, user=user, action=rules.Finish(), seen_version=None)
    assert game.seats.get(number=0).finished


def test_without_the_option_an_open_path_does_not_block_finishing(start_game, committed):
    game = start_game(2)
    draft_to_the_finishing(game, committed)
    place_an_open_tile(game, 0, committed)
    user = game.seats.get(number=0).user
    committed(actions.play, game_id=game.pk, user=user, action=rules.Finish(), seen_version=None)
    assert game.seats.get(number=0).finished


def test_the_finishing_deadline_returns_open_tiles_at_a_strict_table(clock, start_game, committed):
    game = start_game(2, time_per_move=HOUR, strict_finish=True)
    draft_to_the_finishing(game, committed)
    space = place_an_open_tile(game, 0, committed)
    quick = game.seats.get(number=1).user
    committed(actions.play, game_id=game.pk, user=quick, action=rules.Finish(), seen_version=None)

    clock.advance(HOUR)
    committed(tasks.sweep)

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    returned = game.events.filter(cause=Event.Cause.DEADLINE, kind="return", seat=0)
    assert space in [event.action["space"] for event in returned]
    final = current_state(game).boards[0]
    assert not rules.markers(final).open_path and not rules.markers(final).illegal
