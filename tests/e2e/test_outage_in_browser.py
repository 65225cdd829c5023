"""The site cannot reach its database for a moment: a move's 503 answer is said on the game page
("your move was not saved"), the game is unchanged, and the same move goes through once the
database is back."""

from datetime import timedelta

import pytest

from games.play import actions
from games.rules.analysis import legal_spots

from .helpers import (
    TIMEOUT,
    click_and_wait,
    game_state,
    select_tray_tile,
    settled,
    shows_my_board_as_a_reload_would,
)

pytestmark = pytest.mark.servers


def test_a_move_answered_503_says_it_was_not_saved_and_can_be_made_again(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game, state = game_state(game.pk)
    first = game.seats.get(number=state.current).user
    page = open_page(first)
    page.goto(f"/games/{game.pk}/")
    tile = state.draw_tiles()[0]

    def outage(route):
        route.fulfill(
            status=503,
            headers={"Retry-After": "10", "Content-Type": "text/plain; charset=utf-8"},
            body="It cannot reach its database just now. Try again in a few seconds.",
        )

    # The browser and htmx say the 503 in the console: what the test makes happen.
    page.expect_console_error(r"status of 503|Response Status Error Code 503")
    page.route("**/act/**", outage)
    page.locator(f"#draw-{tile}").click()
    trouble = page.locator("#site-trouble")
    trouble.wait_for(timeout=TIMEOUT)
    assert "having trouble reaching its database: your move was not saved" in trouble.inner_text()
    assert trouble.get_attribute("role") == "alert"
    assert game_state(game.pk)[0].version == game.version  # nothing was made

    page.unroute("**/act/**")
    click_and_wait(page, f"#draw-{tile}", game.pk)
    assert page.locator("#site-trouble").count() == 0  # the status was drawn anew
    assert tile in game_state(game.pk)[1].trays[state.current]
    assert page.errors == []


def test_a_move_that_never_got_its_answer_after_a_tile_was_picked_up_shows_the_game_again(
    open_page, make_player
):
    """The page put back the spaces the picked-up tile had lit before sending the move (live.js);
    with no answer, it asks for the game again and shows the board as the server has it."""
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game, state = game_state(game.pk)
    seat = state.current
    page = open_page(game.seats.get(number=seat).user)
    page.goto(f"/games/{game.pk}/")
    tile = state.draw_tiles()[0]
    click_and_wait(page, f"#draw-{tile}", game.pk)
    version = game_state(game.pk)[0].version
    space = legal_spots(game_state(game.pk)[1].boards[seat], tile)[0][0]
    select_tray_tile(page, tile)

    # The browser and htmx say the failed request in the console: what the test makes happen.
    page.expect_console_error(r"net::ERR_FAILED|^htmx:(sendError|afterRequest)")
    page.route("**/act/**", lambda route: route.abort())
    page.locator(f"#my-space-{space}").click()
    page.wait_for_selector(f"#my-tray-{tile}:not([aria-pressed=true])", timeout=TIMEOUT)
    settled(page)

    assert game_state(game.pk)[0].version == version  # nothing was made
    assert page.locator(".seat.mine .space-box.legal").count() == 0
    shows_my_board_as_a_reload_would(page, game.pk)
