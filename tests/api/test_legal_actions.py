"""The legal actions the API lists are the board's own (issue 34): a tile is offered only on the
spaces where it may stay, of its colour and fitting its neighbours, as the game page highlights
them (the rules package's legal_spots and legal_moves), so a client need not know the rules."""

import pytest
from django.test import Client as DjangoClient

from games import rules
from games.play import actions
from games.state_store import load_state, read_game
from tests.games.playing import current_state, draft_the_top_tile

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db


def test_placements_and_moves_are_the_ones_the_board_highlights(start_game, committed):
    game = start_game(2)
    for _ in range(4):
        state = current_state(game)
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
            continue
        draft_the_top_tile(game, committed)
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    seat = next(number for number in range(2) if state.trays[number])
    tile = state.trays[seat][0]
    spot = rules.legal_spots(state.boards[seat], tile)[0]
    actions.play(game_id=game.pk, user=seats[seat].user, action=rules.Place(tile, *spot),
                 seen_version=None)  # fmt: skip
    found, seats = read_game(game.pk)
    state = load_state(found, seats)
    api = Client(DjangoClient(), token_for(seats[seat].user, "read"))

    shown = api.get(f"/games/{game.pk}", arranging="true").json()

    board = state.boards[seat]
    places = {(a["tile_id"], a["space"], a["rotation"]) for a in shown["legal_actions"]
              if a["type"] == "place"}  # fmt: skip
    expected = {
        (tray_tile, space, rotation)
        for tray_tile in state.trays[seat]
        for space, rotation in rules.legal_spots(board, tray_tile)
    }
    assert places == expected and places
    everywhere = sum(1 for a in state.legal_actions(seat) if a.type == "place")
    assert len(places) < everywhere  # the rules take any empty space; the board shows fewer
    moves = {(a["from_space"], a["to_space"]) for a in shown["legal_actions"]
             if a["type"] == "move"}  # fmt: skip
    assert moves == {(spot[0], to) for to in rules.legal_moves(board, spot[0])}
