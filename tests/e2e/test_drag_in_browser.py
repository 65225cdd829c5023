"""Arranging by dragging tiles (mouse, and a finger through the DevTools protocol's real touch
input), the selected tile's menu of large buttons, and the pool walked with the arrow keys."""

from datetime import timedelta

import pytest

from games import rules
from games.play import actions
from games.rules.analysis import legal_moves, legal_spots

from .helpers import TIMEOUT, game_state, place_where_it_fits, serious_violations, settled

pytestmark = pytest.mark.servers

PHONE = {"width": 390, "height": 844}
TALL = {"width": 1280, "height": 1500}  # the pool, the board and the tray in one view
TABLET = {"width": 820, "height": 1400}

# The spaces of the player's own board that are lit, by index.
LIT = """() => [...document.querySelectorAll('.seat.mine .board .space-box')]
    .flatMap((box, index) => box.classList.contains('legal') ? [index] : [])"""


@pytest.fixture
def tiles_in_hand(make_player):
    """A game of two where the player at seat 0 has six tiles in their tray and none placed."""
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game, state = game_state(game.pk)
    users = [seat.user for seat in game.seats.order_by("number")]
    while len(state.trays[0]) < 6 or state.forced_action() is not None:
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        else:
            user = users[state.current]
            for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
                actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
        game, state = game_state(game.pk)
    return game.pk, users[0]


def board_of(game_id):
    return game_state(game_id)[1].boards[0]


def tray_of(game_id):
    return game_state(game_id)[1].trays[0]


def centre_of(locator):
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def space(page, index):
    return page.locator(".seat.mine .board .space-box").nth(index)


def open_game(page, game_id):
    page.goto(f"/games/{game_id}/")
    page.wait_for_selector("#game", timeout=TIMEOUT)
    # Which kinds of pointer the page sees, to tell a finger from a mouse.
    page.evaluate(
        """() => {
            window.pointerKinds = new Set();
            document.addEventListener(
                'pointerdown', e => window.pointerKinds.add(e.pointerType), true);
        }"""
    )


def lit_while_held(page, expected):
    """While the tile is held: its ghost follows the pointer, the spaces where it fits are lit
    (as the server draws them for the selected tile), the one under the pointer is marked."""

    def check():
        page.wait_for_function(
            f"expected => JSON.stringify(({LIT})()) === JSON.stringify(expected)",
            arg=sorted(expected),
            timeout=TIMEOUT,
        )
        assert page.locator(".drag-ghost").count() == 1
        assert page.locator(".drop-target").count() == 1

    return check


def mouse_drag(page, start, end, *, while_held=None, posts=True):
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 10, start[1] + 10, steps=3)  # past the few pixels of a click
    page.mouse.move(*end, steps=8)
    if while_held:
        while_held()
    return _let_go(page, page.mouse.up, posts)


def touch_drag(page, start, end, *, while_held=None, posts=True):
    """Drag with a finger: real touch input (Input.dispatchTouchEvent), which the browser turns
    into touch pointer events, as on a phone."""
    devtools = page.context.new_cdp_session(page)

    def touch(kind, *points):
        points = [{"x": x, "y": y} for x, y in points]
        devtools.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", start)
    for step in range(1, 13):
        touch("touchMove", tuple(a + (b - a) * step / 12 for a, b in zip(start, end, strict=True)))
    if while_held:
        while_held()
    return _let_go(page, lambda: touch("touchEnd"), posts)


def _let_go(page, release, posts):
    if not posts:
        release()
        settled(page)
        return None
    with page.expect_response(lambda r: "/act/" in r.url, timeout=TIMEOUT) as answer:
        release()
    settled(page)
    assert page.locator(".drag-ghost").count() == 0
    return answer.value


def focused(page):
    return page.evaluate("document.activeElement && document.activeElement.id")


def fitting_tile(game_id):
    board = board_of(game_id)
    return next(tile for tile in tray_of(game_id) if legal_spots(board, tile))


def test_tiles_are_dragged_by_mouse_to_place_move_swap_and_return_them(open_page, tiles_in_hand):
    game_id, player = tiles_in_hand
    page = open_page(player, viewport=TALL)
    open_game(page, game_id)

    # A tray tile onto a lit space: placed, turned as it fits there.
    tile = fitting_tile(game_id)
    spots = legal_spots(board_of(game_id), tile)
    first, rotation = spots[0]
    answer = mouse_drag(
        page,
        centre_of(page.locator(f"#my-tray-{tile}")),
        centre_of(space(page, first)),
        while_held=lit_while_held(page, {spot for spot, _ in spots}),
    )
    assert answer.status == 200
    assert board_of(game_id).cells[first] == rules.Placed(tile, rotation)
    assert page.locator('.seat.mine [aria-pressed="true"]').count() == 0  # nothing left picked up
    assert focused(page) == f"my-space-{first}"

    # The placed tile onto an empty space: moved, as it is turned; lit where it fits so.
    moves = legal_moves(board_of(game_id), first)
    to = moves[-1] if moves else next(s for s in range(24, -1, -1) if s != first)
    mouse_drag(
        page,
        centre_of(page.locator(f"#my-space-{first}")),
        centre_of(space(page, to)),
        while_held=lit_while_held(page, set(moves)),
    )
    board = board_of(game_id)
    assert board.cells[first] is None and board.cells[to] == rules.Placed(tile, rotation)

    # Another tray tile anywhere, then the first tile onto it: swapped.
    other = next(t for t in tray_of(game_id) if t != tile)
    third = next(s for s in range(25) if board.cells[s] is None and s != first)
    mouse_drag(page, centre_of(page.locator(f"#my-tray-{other}")), centre_of(space(page, third)))
    assert board_of(game_id).cells[third].tile == other
    mouse_drag(page, centre_of(page.locator(f"#my-space-{to}")), centre_of(space(page, third)))
    board = board_of(game_id)
    assert (board.cells[third].tile, board.cells[to].tile) == (tile, other)

    # A placed tile onto the tray: returned, and the focus is on it there.
    mouse_drag(
        page,
        centre_of(page.locator(f"#my-space-{third}")),
        centre_of(page.locator(".seat.mine .tray h3")),
    )
    assert board_of(game_id).cells[third] is None and tile in tray_of(game_id)
    assert focused(page) == f"my-tray-{tile}"

    # A tray tile onto a placed one: the server refuses it and says why.
    answer = mouse_drag(
        page, centre_of(page.locator(f"#my-tray-{tile}")), centre_of(space(page, to))
    )
    assert answer.status == 422
    assert (
        page.get_by_role("alert").filter(has_text="That space already holds a tile.").is_visible()
    )
    assert tile in tray_of(game_id) and board_of(game_id).cells[to].tile == other

    # Dropped off the board and tray: nothing is posted and nothing stays picked up.
    before = board_of(game_id)
    mouse_drag(
        page,
        centre_of(page.locator(f"#my-space-{to}")),
        centre_of(page.locator("#pool h2")),
        posts=False,
    )
    page.wait_for_selector('.seat.mine [aria-pressed="true"]', state="detached", timeout=TIMEOUT)
    assert board_of(game_id) == before

    # Clicking works as before: select a tray tile, click a lit space.
    assert place_where_it_fits(page, game_id, 0, fitting_tile(game_id)) is not None
    assert page.evaluate("[...window.pointerKinds]") == ["mouse"]
    assert page.errors == []


def test_tiles_are_dragged_by_touch(open_page, tiles_in_hand):
    game_id, player = tiles_in_hand
    page = open_page(player, viewport=TABLET, touch=True)
    open_game(page, game_id)
    # A finger drags within what the screen shows: the board and its tray, scrolled to as a
    # player would (the notices, the pool and the drafting-ahead panel come before the tray).
    page.locator(".seat.mine").evaluate("seat => seat.scrollIntoView({block: 'start'})")

    tile = fitting_tile(game_id)
    spots = legal_spots(board_of(game_id), tile)
    first = spots[-1][0]
    rotation = next(r for s, r in spots if s == first)  # the first turn that fits there
    touch_drag(
        page,
        centre_of(page.locator(f"#my-tray-{tile}")),
        centre_of(space(page, first)),
        while_held=lit_while_held(page, {spot for spot, _ in spots}),
    )
    assert board_of(game_id).cells[first] == rules.Placed(tile, rotation)
    assert page.evaluate("[...window.pointerKinds]") == ["touch"]

    touch_drag(
        page,
        centre_of(page.locator(f"#my-space-{first}")),
        centre_of(page.locator(".seat.mine .tray h3")),
    )
    assert board_of(game_id).cells[first] is None and tile in tray_of(game_id)

    # A tap is still a tap: it selects the tile.
    page.locator(f"#my-tray-{tile}").tap()
    page.wait_for_selector(f"#my-tray-{tile}[aria-pressed=true]", timeout=TIMEOUT)
    assert page.errors == []


def boxes_overlap(a, b):
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def within(inner, outer):
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def test_a_tapped_tile_opens_large_buttons_beside_it(open_page, tiles_in_hand):
    game_id, player = tiles_in_hand
    tiles = tray_of(game_id)[:2]
    for tile, where in zip(tiles, (12, 19), strict=True):  # the middle, and the right edge
        actions.play(
            game_id=game_id, user=player, action=rules.Place(tile, where, 0), seen_version=None
        )
    page = open_page(player, viewport=PHONE, touch=True)
    open_game(page, game_id)
    menu = page.locator(".tile-menu button")

    def open_menu(where):
        page.locator(f"#my-space-{where}").tap()
        page.wait_for_selector(f"#my-space-{where}[aria-pressed=true]", timeout=TIMEOUT)
        settled(page)
        assert menu.count() == 3
        board = page.locator(".seat.mine .board").bounding_box()
        tile = page.locator(f"#my-space-{where}").bounding_box()
        for button in menu.all():
            box = button.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, box
            assert not boxes_overlap(box, tile) and within(box, board), (box, tile, board)

    def rotation():
        return board_of(game_id).cells[12].rotation

    def tap_and_wait(selector):
        with page.expect_response(lambda r: "/act/" in r.url, timeout=TIMEOUT) as answer:
            page.locator(selector).tap()
        assert answer.value.status == 200
        settled(page)

    # Tapping the tile again closes its menu.
    open_menu(19)
    page.locator("#my-space-19").tap()
    page.wait_for_selector(".tile-menu", state="detached", timeout=TIMEOUT)
    assert page.locator('.seat.mine [aria-pressed="true"]').count() == 0
    settled(page)

    open_menu(12)
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()
    turned = rotation()
    tap_and_wait("#tile-menu-clockwise")
    assert rotation() == (turned + 1) % 4
    assert menu.count() == 3 and focused(page) == "tile-menu-clockwise"  # still open, in place
    tap_and_wait("#tile-menu-anticlockwise")
    assert rotation() == turned and focused(page) == "tile-menu-anticlockwise"
    page.locator("#my-space-12").tap()
    page.wait_for_selector(".tile-menu", state="detached", timeout=TIMEOUT)
    settled(page)

    # So does a tap outside it.
    open_menu(12)
    page.locator(".game-title").tap()
    page.wait_for_selector(".tile-menu", state="detached", timeout=TIMEOUT)
    settled(page)

    # And Escape, from one of its buttons: the focus goes back to the tile.
    open_menu(12)
    page.locator("#tile-menu-clockwise").focus()
    page.keyboard.press("Escape")
    page.wait_for_selector(".tile-menu", state="detached", timeout=TIMEOUT)
    settled(page)
    assert focused(page) == "my-space-12"

    # R turns the focused tile, also while another tile's menu is open (and swaps nothing).
    open_menu(19)
    page.locator("#my-space-12").focus()
    page.keyboard.press("r")
    page.wait_for_selector("#my-space-12[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    board = board_of(game_id)
    assert board.cells[12] == rules.Placed(tiles[0], (turned + 1) % 4)
    assert board.cells[19].tile == tiles[1]

    # Return to the tray: the tile goes back, the focus with it.
    tap_and_wait(f"#tile-menu-return-{tiles[0]}")
    assert board_of(game_id).cells[12] is None and tiles[0] in tray_of(game_id)
    assert page.locator(".tile-menu").count() == 0
    page.wait_for_function(
        f"() => document.activeElement.id === 'my-tray-{tiles[0]}'", timeout=TIMEOUT
    )
    assert page.errors == []


def test_the_arrow_keys_walk_the_pool_and_enter_drafts(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game, state = game_state(game.pk)
    player = game.seats.get(number=state.current).user
    page = open_page(player, viewport=TALL)
    open_game(page, game.pk)
    draw = state.draw_column()
    columns = state.columns
    left = max(c for c in range(draw) if columns[c])

    def at():
        return page.evaluate(
            """() => { const box = document.activeElement.closest('.pool .tile-box');
            return box && [Number(box.dataset.tile), document.activeElement.tagName]; }"""
        )

    page.locator(f"#draw-{columns[draw][0]}").focus()
    page.keyboard.press("ArrowRight")  # the last column: nowhere further
    assert at() == [columns[draw][0], "BUTTON"]
    page.keyboard.press("ArrowLeft")  # the next column: its tiles are not draftable, but readable
    assert at() == [columns[left][0], "LI"]
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("ArrowDown")
    assert at() == [columns[left][1], "LI"]
    page.keyboard.press("ArrowRight")  # the same row of the draw column
    assert at() == [columns[draw][1], "BUTTON"]
    page.keyboard.press("ArrowUp")
    assert at() == [columns[draw][0], "BUTTON"]
    page.keyboard.press("ArrowUp")  # the top of the column
    assert at() == [columns[draw][0], "BUTTON"]

    page.keyboard.press("Enter")  # draft it
    page.wait_for_selector(f"#my-tray-{columns[draw][0]}", timeout=TIMEOUT)
    settled(page)
    assert game_state(game.pk)[1].pending.tile_id == columns[draw][0]
    assert page.errors == []
