"""The strict-finish table option in the browser: ticked on the new-game form, shown on the game
page, and Finish held back with the open paths named until every placed path is closed."""

import re

import pytest

from games import rules
from games.play import actions

from .helpers import TIMEOUT, click_and_wait, game_state, select

pytestmark = pytest.mark.servers


def test_a_strict_table_holds_finish_until_every_path_is_closed(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    page = open_page(ada)
    page.goto("/games/new/")
    page.fill("input[name=name]", "Closed paths")
    page.select_option("select[name=player_count]", "2")
    page.get_by_label("Finish needs every placed path closed (as in the online edition)").check()
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    game_id = int(re.search(r"/games/(\d+)/$", page.url).group(1))
    assert page.get_by_text("Finish needs every placed path closed").is_visible()
    actions.join_game(game_id=game_id, user=brian)

    # The drafting is played on the server side (what the browser does there is tested
    # elsewhere); ada then makes her final arrangement in the page.
    game, state = game_state(game_id)
    while state.phase == rules.DRAFTING:
        if state.forced_action() is not None:  # the worker may take it first: once is all
            actions.take_last_tile(game_id=game_id)
        else:
            user = game.seats.get(number=state.current).user
            for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
                actions.play(game_id=game_id, user=user, action=action, seen_version=None)
        game, state = game_state(game_id)
    seat = game.seats.get(user=ada).number
    tile, space, rotation = next(
        (tile, space, rotation)
        for tile in state.trays[seat]
        for space, rotation in rules.legal_spots(state.boards[seat], tile)
        if rules.markers(
            state.boards[seat].with_cells({space: rules.Placed(tile, rotation)})
        ).open_path
    )
    actions.play(
        game_id=game_id, user=ada, action=rules.Place(tile, space, rotation), seen_version=None
    )

    page.goto(f"/games/{game_id}/")
    assert page.locator("#strict-finish").is_visible()
    finish = page.get_by_role("button", name="Finish", exact=True)
    assert finish.is_disabled()
    where = f"row {space // 5 + 1}, column {space % 5 + 1}"
    why = page.locator("#finish-why")
    assert f"open at {where}" in why.inner_text()
    assert finish.get_attribute("aria-describedby") == "finish-why"

    # Back to the tray with the tile: nothing open is left, and Finish goes through.
    select(page, f"my-space-{space}")
    click_and_wait(page, f"#tile-menu-return-{tile}", game_id)
    page.wait_for_selector("#finish-why", state="detached", timeout=TIMEOUT)
    assert finish.is_enabled()
    click_and_wait(page, "#game-status button.finish", game_id)
    page.wait_for_selector("text=You have finished", timeout=TIMEOUT)
    assert game_state(game_id)[0].seats.get(user=ada).finished
    assert page.errors == []
