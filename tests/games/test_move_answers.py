"""The answer to a move: only what it changed when the page was up to date, else the whole game."""

import re

import pytest
from django.urls import reverse

from games import rules
from games.rules.greedy import best_placement, choose_draft
from games.rules.tiles import TILE_PATHS
from tests.live.measuring import Page

from .playing import current_state
from .test_views import HTMX, client_for, create_and_fill

pytestmark = pytest.mark.django_db


def act(client, game, action, *, page_version):
    headers = {} if page_version is None else {"HTTP_X_PAGE_VERSION": str(page_version)}
    data = {**action.to_json(), "version": game.version}  # fresh: only the header says more
    return client.post(reverse("games:act", args=[game.pk]), data, **HTMX, **headers)


def top_level_ids(html: str) -> set[str]:
    openings = re.findall(r"<section [^>]*>", html)
    return {
        re.search(r'\sid="([^"]+)"', opening).group(1)
        for opening in openings
        if 'hx-swap-oob="true"' in opening
    }


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


def drafted(players):
    """A game whose current player has drafted and confirmed a tile: (game, seat, client)."""
    game = create_and_fill(players, 2)
    state = current_state(game)
    drafter = state.current
    client = client_for(game.seats.get(number=drafter).user)
    for action in (choose_draft(state, drafter), rules.ConfirmDraft()):
        game.refresh_from_db()
        assert act(client, game, action, page_version=game.version).status_code == 200
    game.refresh_from_db()
    return game, drafter, client


def test_a_placement_answers_with_the_movers_board_and_status_only(players):
    game, drafter, client = drafted(players)
    state = current_state(game)
    placement = best_placement(state.boards[drafter], list(state.trays[drafter]))[1]

    response = act(client, game, placement, page_version=game.version)

    html = response.content.decode()
    assert top_level_ids(html) == {"game-status", f"seat-{drafter}"}
    paths = TILE_PATHS[placement.tile_id][placement.rotation]
    assert f'<use href="#tile-{paths}"/>' in html  # the placed tile is drawn on the board


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


def _picking_up(players):
    """A game whose current player has a tile in their tray to place, and that player's page
    as loaded: its client and the looks it shows (tests/live/measuring.py's Page)."""
    game, drafter, client = drafted(players)
    page = Page(drafter)
    page.load(client.get(reverse("games:fragment", args=[game.pk]), **HTMX).content.decode())
    tile = current_state(game).trays[drafter][0]
    return game, drafter, client, page, tile


def pick_up(client, game, tile, headers):
    url = reverse("games:fragment", args=[game.pk])
    return client.get(f"{url}?sel=t{tile}", **HTMX, **headers)


def test_picking_a_tile_up_on_an_up_to_date_page_answers_with_the_spaces_it_may_go_to(players):
    game, drafter, client, page, tile = _picking_up(players)
    headers = {"HTTP_X_PAGE_VERSION": str(game.version), "HTTP_X_PAGE_LOOKS": page.header()}

    response = pick_up(client, game, tile, headers)

    html = response.content.decode()
    assert response.status_code == 200
    assert response["X-Game-Parts"] == "selection"
    assert response["HX-Reswap"] == "none"
    assert response["X-Game-Drawn-Version"] == str(game.version)
    assert 'id="game"' not in html and 'id="pool"' not in html
    # Each space it may go to, as a button that places it there; nothing of the other seat.
    places = re.findall(r'id="seat-(\d+)-space-\d+"[^>]*>\s*<button[^>]*space-button', html)
    assert places and set(places) == {str(drafter)}
    assert 'hx-vals=\'{"type":"place",' in html  # compact, in single quotes
    assert f"seat-{1 - drafter}-" not in html
    assert len(html) < len(pick_up(client, game, tile, {}).content) / 2
    # Asked for by the page itself (a drag, a push's redraw), it leaves the address to the page.
    assert "HX-Push-Url" not in response


@pytest.mark.parametrize(
    ("trigger", "pushed"),
    [
        ("my-tray-{tile}", "?sel=t{tile}"),
        ("my-space-3", "?sel=t{tile}"),
        ("game", None),
        (None, None),
    ],
)
def test_a_click_on_a_tile_puts_the_selection_in_the_address(players, trigger, pushed):
    """A tile's button says no address (live.js writes it from its id): the answer to a click on
    it (htmx names the button, HX-Trigger) pushes the game's address with the selection."""
    game, _, client, page, tile = _picking_up(players)
    headers = {"HTTP_X_PAGE_VERSION": str(game.version), "HTTP_X_PAGE_LOOKS": page.header()}
    if trigger:
        headers["HTTP_HX_TRIGGER"] = trigger.format(tile=tile)

    response = pick_up(client, game, tile, headers)

    game_url = reverse("games:game", args=[game.pk])
    expected = game_url + pushed.format(tile=tile) if pushed else None
    assert response.get("HX-Push-Url") == expected
    # Put down: the address without a selection.
    put_down = client.get(reverse("games:fragment", args=[game.pk]), **HTMX, **headers)
    assert put_down.get("HX-Push-Url") == (game_url if pushed else None)


@pytest.mark.parametrize("page", ["behind", "no looks"])
def test_picking_a_tile_up_on_a_page_that_is_behind_or_says_nothing_gets_the_whole_game(
    players, page
):
    game, _, client, shown, tile = _picking_up(players)
    headers = {"HTTP_X_PAGE_VERSION": str(game.version)}
    if page == "behind":
        headers = {"HTTP_X_PAGE_VERSION": str(game.version - 1)}
        headers["HTTP_X_PAGE_LOOKS"] = shown.header()

    response = pick_up(client, game, tile, headers)

    assert "X-Game-Parts" not in response
    assert 'id="game"' in response.content.decode()
