"""Two players play a whole game in two browsers, by clicking, and watch each other live.

Every turn of the opening and every third turn after it is clicked; the turns between are the
same greedy player's moves made through the server's actions, which both pages follow live. A
clicked turn costs the browsers about as much CPU as loading the game page ten times, and the
turns between click nothing the clicked ones do not (the suite's time: docs/testing.md)."""

import re

import pytest

from games import rules
from games.models import Game
from games.play import actions
from games.rules.greedy import choose_draft
from tests.games.playing import next_move

from .conftest import screenshot
from .helpers import (
    TIMEOUT,
    click_and_wait,
    game_state,
    place_where_it_fits,
    select,
    select_tray_tile,
    shows_my_board_as_a_reload_would,
    shows_version,
    wrong_colour_space,
)

pytestmark = pytest.mark.servers


def create_invitation_game(page, invitee, players=2):
    page.goto("/games/new/")
    page.fill("input[name=name]", "Browser game")
    page.select_option("select[name=player_count]", str(players))
    page.select_option("select[name=time_per_move]", "1d")
    page.check("input[name=access][value=invitation]")
    page.fill("input[name=invitees]", invitee)
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    return int(re.search(r"/games/(\d+)/$", page.url).group(1))


def test_two_players_play_a_whole_game_by_clicking(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    a, b = open_page(ada), open_page(brian)

    game_id = create_invitation_game(a, "brian")
    b.goto("/dashboard/")
    b.get_by_role("link", name="Browser game").click()
    b.get_by_role("button", name="Take a seat").click()
    b.wait_for_selector("#game", timeout=TIMEOUT)
    a.goto(f"/games/{game_id}/")
    pages = {ada.pk: a, brian.pk: b}
    game, state = game_state(game_id)
    users = [seat.user for seat in game.seats.order_by("number")]
    exercised = set()
    turns = 0

    while state.phase == rules.DRAFTING:
        seat = state.current
        page, other = pages[users[seat].pk], pages[users[1 - seat].pk]
        if state.forced_action() is not None:  # the worker takes the last tile
            other.wait_for_function(
                "v => Number(document.getElementById('game').dataset.version) > v",
                arg=game.version,
                timeout=TIMEOUT,
            )
            game, state = game_state(game_id)
            continue
        shows_version(page, game.version)  # a forced take may have moved the game on since
        turns += 1
        if turns > OPENING and turns % 3:
            game, state = play_a_turn_through_the_server(game_id)
            shows_version(other, game.version)
            continue
        tile = choose_draft(state, seat).tile_id
        if "undo" not in exercised:
            click_and_wait(page, f"#draw-{tile}", game_id)
            click_and_wait(page, "button:has-text('Undo')", game_id)
            assert page.locator(f"#draw-{tile}").is_visible()
            exercised.add("undo")
        click_and_wait(page, f"#draw-{tile}", game_id)
        place_where_it_fits(page, game_id, seat, tile)
        shows_my_board_as_a_reload_would(page, game_id)
        version = click_and_wait(page, "button:has-text('Confirm draft')", game_id)
        # The other player's page follows without a reload.
        shows_version(other, version)
        game, state = game_state(game_id)
        if "arranging" not in exercised and state.boards[seat].tile_count >= 2:
            arrange_every_way(page, game_id, seat)
            shows_my_board_as_a_reload_would(page, game_id)
            exercised.add("arranging")
            game, state = game_state(game_id)

    assert exercised == {"undo", "arranging"}
    # Finishing: the first player tries to finish with an illegal tile, sees why, mends it.
    first = pages[users[0].pk]
    game, state = game_state(game_id)
    tray_tile = state.trays[0][0]
    wrong = wrong_colour_space(state, 0, tray_tile)
    select_tray_tile(first, tray_tile)
    click_and_wait(first, f"#my-space-{wrong}", game_id)
    finish = first.get_by_role("button", name="Finish")
    assert finish.is_disabled()
    assert first.get_by_text(
        re.compile(r"You cannot finish while \d+ tiles? (is|are) illegal")
    ).is_visible()
    stripes = first.locator(f"#my-space-{wrong} .tile-stripes")  # the space's colour shows
    assert stripes.count() == 1 and stripes.is_visible()
    # What is wrong is the button's title: its tooltip, and its description.
    assert "wrong colour: a " in first.locator(f"#my-space-{wrong}").get_attribute("title")
    select(first, f"my-space-{wrong}")
    click_and_wait(first, f"#tile-menu-return-{tray_tile}", game_id)
    for user in users:
        click_and_wait(pages[user.pk], "button:has-text('Finish')", game_id)

    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ENDED
    for page in pages.values():
        page.wait_for_selector("section.results", timeout=TIMEOUT)
    winners = a.locator("section.results tr.winner").all_inner_texts()
    for seat in game.seats.filter(place=1):
        assert any(seat.user.username in row for row in winners)
    # (The results' picture is test_table_in_browser's: the window a player sees at the end.)

    a.get_by_role("link", name="Replay this game move by move").click()
    a.wait_for_selector("#replay", timeout=TIMEOUT)
    a.locator("#replay-first").click()
    a.wait_for_selector('#replay[data-step="0"]', timeout=TIMEOUT)
    a.locator("#replay-next").click()
    a.wait_for_selector('#replay[data-step="1"]', timeout=TIMEOUT)
    a.keyboard.press("ArrowRight")
    a.wait_for_selector('#replay[data-step="2"]', timeout=TIMEOUT)
    a.keyboard.press("ArrowLeft")
    a.wait_for_selector('#replay[data-step="1"]', timeout=TIMEOUT)
    for step in range(2, 14):
        a.keyboard.press("ArrowRight")
        a.wait_for_selector(f'#replay[data-step="{step}"]', timeout=TIMEOUT)
    screenshot(a, "replay")
    assert a.errors == [] and b.errors == []


# The turns clicked before only every third one is: each player's first four.
OPENING = 8


def play_a_turn_through_the_server(game_id):
    """The drafter drafts, places greedily and confirms, through the server's actions
    (as an API client would); return the game and its state after the turn."""
    game, state = game_state(game_id)
    seat = state.current
    while state.phase == rules.DRAFTING and state.current == seat and state.forced_action() is None:
        found = next_move(game)
        user_of_move = game.seats.get(number=found[0]).user
        actions.play(game_id=game_id, user=user_of_move, action=found[1], seen_version=None)
        game, state = game_state(game_id)
    return game, state


def arrange_every_way(page, game_id, seat):
    """Rotate, move, swap, return and clear on the player's own board, by clicking (the selected
    tile's menu rotates and returns it)."""
    _, state = game_state(game_id)
    board = state.boards[seat]
    placed = [space for space, cell in enumerate(board.cells) if cell is not None]
    first, second = placed[:2]
    # A selected tile's menu lies over the next column: click nothing it covers.
    empty = next(
        space
        for space, cell in enumerate(board.cells)
        if cell is None and abs(space % 5 - first % 5) != 1 and abs(space % 5 - second % 5) != 1
    )

    select(page, f"my-space-{first}")  # its menu opens beside it
    turned = board.cells[first].rotation
    click_and_wait(page, "#tile-menu-clockwise", game_id)
    assert game_state(game_id)[1].boards[seat].cells[first].rotation == (turned + 1) % 4

    click_and_wait(page, f"#my-space-{empty}", game_id)  # the rotated tile stays selected: move
    assert game_state(game_id)[1].boards[seat].cells[empty] is not None

    select(page, f"my-space-{empty}")
    click_and_wait(page, f"#my-space-{second}", game_id)  # another tile: swap
    after_swap = game_state(game_id)[1].boards[seat]
    assert after_swap.cells[second].tile == board.cells[first].tile

    select(page, f"my-space-{second}")
    click_and_wait(page, f"#tile-menu-return-{board.cells[first].tile}", game_id)
    assert game_state(game_id)[1].boards[seat].cells[second] is None

    page.once("dialog", lambda dialog: dialog.accept())
    click_and_wait(page, "button:has-text('Clear board')", game_id)
    _, state = game_state(game_id)
    assert state.boards[seat].tile_count == 0
    for tile in list(state.trays[seat]):
        place_where_it_fits(page, game_id, seat, tile)
