"""Undo and Redo of arranging across two tabs of the same player: the history is the server's,
so either tab steps through it and the other follows live; a tab that missed a change to the
board is refused and shown the board as it is, never undoing twice."""

import contextlib
from datetime import timedelta

import pytest

from games import rules
from games.play import actions

from .helpers import (
    TIMEOUT,
    click_and_wait,
    game_state,
    place_where_it_fits,
    select,
    select_tray_tile,
    shows_version,
)

pytestmark = pytest.mark.servers


def started_with_tiles(make_player):
    """A 2-player game where each player has drafted twice; return (game id, ada, her seat)."""
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    for _ in range(4):
        game, state = game_state(game.pk)
        user = game.seats.get(number=state.current).user
        for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
            actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    # The column is down to its last tile: take it now (the worker may too; once is all it
    # does), or it would land in a tray, and end that seat's history, during the test.
    actions.take_last_tile(game_id=game.pk)
    game, state = game_state(game.pk)
    assert state.forced_action() is None
    return game.pk, ada, game.seats.get(user=ada).number


def has_tile(page, space):
    return page.locator(".seat.mine .space-box").nth(space).get_attribute("data-tile")


def test_undo_and_redo_work_from_either_tab_and_a_tab_behind_is_resynced(open_page, make_player):
    game_id, ada, seat = started_with_tiles(make_player)
    first, second = open_page(ada), open_page(ada)
    for page in (first, second):
        page.goto(f"/games/{game_id}/")
    assert first.locator("#undo-arranging").is_disabled()

    _, state = game_state(game_id)
    tile = next(t for t in state.trays[seat] if rules.legal_spots(state.boards[seat], t))
    space = place_where_it_fits(first, game_id, seat, tile)
    assert space is not None
    version = game_state(game_id)[0].version
    select(first, f"my-space-{space}")
    first.keyboard.press("r")  # turn it: a second step to undo
    first.wait_for_function(
        "v => Number(document.getElementById('game').dataset.version) > v",
        arg=version,
        timeout=TIMEOUT,
    )
    game, state = game_state(game_id)
    turned = state.boards[seat].cells[space].rotation
    shows_version(second, game.version)  # the other tab follows live

    # The second tab undoes the turn, then the placement; the first follows.
    click_and_wait(second, "#undo-arranging", game_id)
    assert game_state(game_id)[1].boards[seat].cells[space].rotation == (turned - 1) % 4
    version = click_and_wait(second, "#undo-arranging", game_id)
    shows_version(first, version)
    assert has_tile(first, space) is None and has_tile(second, space) is None
    assert first.locator("#undo-arranging").is_disabled()
    assert first.locator("#redo-arranging").is_enabled()

    # The first tab redoes the placement; the second follows and may undo it again.
    version = click_and_wait(first, "#redo-arranging", game_id)
    shows_version(first, version)
    shows_version(second, version)
    assert has_tile(second, space) == str(tile)
    assert game_state(game_id)[1].boards[seat].cells[space] == rules.Placed(tile, (turned - 1) % 4)

    # A third tab whose live updates do not arrive (its socket goes nowhere) still shows the
    # board from before the redo; its Undo is refused and the tab shows the board as it is.
    behind = open_page(ada)
    behind.context.route_web_socket("**/ws/**", lambda socket: None)
    behind.goto(f"/games/{game_id}/")
    version = click_and_wait(first, "#undo-arranging", game_id)
    assert has_tile(behind, space) == str(tile)  # it missed the undo
    with behind.expect_response(lambda r: "/act/" in r.url, timeout=TIMEOUT) as answer:
        behind.locator("#undo-arranging").click()
    assert answer.value.status == 409
    behind.wait_for_selector("#game-status .error", timeout=TIMEOUT)
    assert "moved on" in behind.locator("#game-status .error").inner_text()
    shows_version(behind, version)
    assert has_tile(behind, space) is None
    game, state = game_state(game_id)
    assert game.version == version  # nothing was undone twice
    assert state.boards[seat].cells[space] is None and len(state.redo_of(seat)) == 2
    # Now current, the same tab redoes it; Ctrl+Z in the first tab undoes it again.
    click_and_wait(behind, "#redo-arranging", game_id)
    version = game_state(game_id)[0].version
    shows_version(first, version)
    with first.expect_response(lambda r: "/act/" in r.url, timeout=TIMEOUT):
        first.keyboard.press("Control+z")
    shows_version(second, version + 1)
    assert game_state(game_id)[1].boards[seat].cells[space] is None
    assert first.errors == [] and second.errors == [] and behind.errors == []


def test_a_drawing_that_arrives_after_a_newer_version_does_not_take_the_page_back(
    open_page, make_player
):
    """A selection's drawing of the game is fetched, and a push of another player's move lands
    while it is on its way: the page keeps the newer version (here the drawing is held back on
    purpose; under load it happens by itself after a push redraws a selected tile's board)."""
    game_id, ada, seat = started_with_tiles(make_player)
    page = open_page(ada)
    page.goto(f"/games/{game_id}/")
    game, state = game_state(game_id)
    held = []
    page.route("**/fragment/**", lambda route: held.append(route))
    tile = state.trays[seat][0]
    page.locator(f"#my-tray-{tile}").click()
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the selection's request was not made"
    drawn = held[0].fetch()  # drawn now, at the version the page shows

    mover = game.seats.get(number=state.current).user
    actions.play(
        game_id=game_id, user=mover, action=rules.Draft(state.draw_tiles()[0]), seen_version=None
    )
    newer = game_state(game_id)[0].version
    shows_version(page, newer)  # the push arrived
    held[0].fulfill(response=drawn)
    page.wait_for_timeout(500)
    assert page.locator("#game").get_attribute("data-version") == str(newer)
    assert page.errors == []


def test_a_move_whose_answer_the_page_dropped_still_reaches_the_page(open_page, make_player):
    """The page sends a move, then a selection before the answer came: htmx drops the move's
    request for the newer one (hx-sync), the move was made all the same, and its push skips
    this page (which expects the answer). The page asks for a sync and shows the move."""
    game_id, ada, seat = started_with_tiles(make_player)
    page = open_page(ada)
    page.goto(f"/games/{game_id}/")
    _, state = game_state(game_id)
    tile, other = state.trays[seat][:2]
    if place_where_it_fits(page, game_id, seat, tile) is None:  # space 0 is a place too
        place_anywhere(page, game_id, tile)
    before = game_state(game_id)[0].version
    shows_version(page, before)
    stale = page.request.get(f"/games/{game_id}/fragment/", headers={"HX-Request": "true"})
    stale_body, stale_headers = stale.body(), stale.headers

    # htmx says in the console that it dropped the move's request for the newer one.
    page.expect_console_error(r"^htmx:(sendAbort|afterRequest)")
    made = []
    page.route("**/act/**", lambda route: made.append((route, route.fetch())))
    page.route(
        "**/fragment/**",
        lambda route: route.fulfill(status=200, headers=stale_headers, body=stale_body),
    )
    page.locator("#undo-arranging").click()
    for _ in range(200):  # the server has made the move; its answer is held
        if made:
            break
        page.wait_for_timeout(25)
    assert made and game_state(game_id)[0].version == before + 1
    page.locator(f"#my-tray-{other}").click()  # a newer request on the game: htmx drops the move's

    shows_version(page, before + 1)
    assert page.locator(".seat.mine .space-box[data-tile]").count() == 0  # the undo is drawn
    route, _ = made[0]
    with contextlib.suppress(Exception):  # the browser gave up on it already
        route.abort()


def place_anywhere(page, game_id, tile):
    """Place `tile` on the first empty space (it fits nowhere legally), by clicking."""
    select_tray_tile(page, tile)
    click_and_wait(page, "#my-space-12", game_id)
    return 12


def without_looks(route) -> dict:
    return {k: v for k, v in route.request.headers.items() if k.lower() != "x-page-looks"}


def test_a_move_whose_answer_lands_after_the_game_was_redrawn_still_reaches_the_page(
    open_page, make_player
):
    """A drawing of the game (a selection kept after a push) is on its way when the player
    moves; it lands first and replaces the element that made the move, so htmx swaps the move's
    answer into nothing. The page sees it is older than the answer and asks for a sync, well
    before its next heartbeat would have mended it."""
    game_id, ada, seat = started_with_tiles(make_player)
    page = open_page(ada)
    page.goto(f"/games/{game_id}/")
    _, state = game_state(game_id)
    tile = state.trays[seat][0]
    if place_where_it_fits(page, game_id, seat, tile) is None:  # space 0 is a place too
        place_anywhere(page, game_id, tile)
    before = game_state(game_id)[0].version
    shows_version(page, before)

    drawings, moves = [], []
    # A whole drawing (pieces are what an up-to-date page gets: here the page's looks are left
    # out, as a page that is behind or a resync gets the whole game).
    page.route(
        "**/fragment/**",
        lambda route: drawings.append((route, route.fetch(headers=without_looks(route)))),
    )
    page.route("**/act/**", lambda route: moves.append((route, route.fetch())))
    page.evaluate(
        """() => {
            htmx.ajax('GET', document.getElementById('game').dataset.fragmentUrl,
                      {target: '#game', swap: 'outerHTML'});
        }"""
    )
    page.locator("#undo-arranging").click()
    for _ in range(200):  # both on their way; the move is made
        if drawings and moves:
            break
        page.wait_for_timeout(25)
    assert drawings and moves and game_state(game_id)[0].version == before + 1
    route, drawn = drawings[0]
    route.fulfill(response=drawn)  # the drawing at `before` lands first
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    )
    route, answer = moves[0]
    route.fulfill(response=answer)

    page.wait_for_selector(f'#game[data-version="{before + 1}"]', state="attached", timeout=5000)
    assert page.locator(".seat.mine .space-box[data-tile]").count() == 0  # the undo is drawn
    assert page.errors == []
