"""The answer to a move: only what it changed when the page was up to date, else the whole game."""

import re

import pytest
from django.urls import reverse

from games import rules
from games.rules.greedy import best_placement, choose_draft

from .playing import current_state
from .test_views import HTMX, client_for, create_and_fill

pytestmark = pytest.mark.django_db


def act(client, game, action, *, page_version):
    headers = {} if page_version is None else {"HTTP_X_PAGE_VERSION": str(page_version)}
    data = {**action.to_json(), "version": game.version}  # fresh: only the header says more
    return client.post(reverse("games:act", args=[game.pk]), data, **HTMX, **headers)


def top_level_ids(html: str) -> set[str]:
    return set(re.findall(r'<section [^>]*id="([^"]+)"[^>]*hx-swap-oob="true"', html))


def test_a_draft_on_an_up_to_date_page_answers_with_the_pool_status_and_the_drafters_board(
    players,
):
    game = create_and_fill(players, 2)
    state = current_state(game)
    drafter = state.current
    client = client_for(game.seats.get(number=drafter).user)

    response = act(client, game, choose_draft(state, drafter), page_version=game.version)

    html = response.content.decode()
    assert response.status_code == 200
    assert response["X-Game-Version"] == str(game.version + 1)
    assert response["X-Game-Parts"] == "changed"
    assert response["HX-Reswap"] == "none"  # nothing replaces #game; each part swaps by id
    assert 'id="game"' not in html
    # With the pool, the drafter's own Drafting-ahead panel (what their queue did goes once
    # they act on the draw column).
    assert top_level_ids(html) == {"game-status", "pool", f"seat-{drafter}", "draft-ahead"}
    assert "Confirm" in html  # the pending draft waits for its confirmation


def test_a_placement_answers_with_the_movers_board_and_status_only(players):
    game = create_and_fill(players, 2)
    state = current_state(game)
    drafter = state.current
    client = client_for(game.seats.get(number=drafter).user)
    for action in (choose_draft(state, drafter), rules.ConfirmDraft()):
        game.refresh_from_db()
        assert act(client, game, action, page_version=game.version).status_code == 200
    game.refresh_from_db()
    state = current_state(game)
    placement = best_placement(state.boards[drafter], list(state.trays[drafter]))[1]

    response = act(client, game, placement, page_version=game.version)

    html = response.content.decode()
    assert top_level_ids(html) == {"game-status", f"seat-{drafter}"}
    tile = rules.TILES[placement.tile_id]
    assert f'data-kind="{tile.kind.value}"' in html  # the placed tile is drawn on the board


@pytest.mark.parametrize("behind", [None, 2])
def test_a_page_that_missed_changes_gets_the_whole_game(players, behind):
    game = create_and_fill(players, 2)
    state = current_state(game)
    drafter = state.current
    client = client_for(game.seats.get(number=drafter).user)
    page_version = None if behind is None else game.version - behind + 1

    response = act(client, game, choose_draft(state, drafter), page_version=page_version)

    html = response.content.decode()
    assert response.status_code == 200
    assert "X-Game-Parts" not in response
    assert response["X-Game-Version"] == str(game.version + 1)
    assert f'data-version="{game.version + 1}"' in html
    assert 'id="game"' in html
