"""The game page on a phone, with the keyboard alone, with colour-blind shapes, and axe-core."""

import re

import pytest

from games import rules
from games.play import actions
from games.rules.analysis import legal_spots, side_markers
from tests.games.playing import mark_every_way

from .conftest import screenshot
from .helpers import TIMEOUT, game_state, open_live, serious_violations, settled

pytestmark = pytest.mark.servers

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def two_player_game(make_player):
    from datetime import timedelta

    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game.refresh_from_db()
    first = game.seats.get(number=0).user
    return game, first


def no_horizontal_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_phone_plays_by_touch_without_scrolling_sideways(open_page, two_player_game):
    game, first = two_player_game
    page = open_page(first, viewport=PHONE, touch=True)
    page.context.set_default_timeout(TIMEOUT)
    page.goto(f"/games/{game.pk}/")
    assert no_horizontal_scroll(page)
    _, state = game_state(game.pk)
    tile = state.draw_tiles()[0]

    page.locator(f"#draw-{tile}").tap()
    page.wait_for_selector(f"#my-tray-{tile}", timeout=TIMEOUT)
    settled(page)  # the draft's answer swapped in: a tap lands on the button that stays
    page.locator(f"#my-tray-{tile}").tap()
    page.wait_for_selector(f"#my-tray-{tile}[aria-pressed=true]", timeout=TIMEOUT)
    _, state = game_state(game.pk)
    space = (legal_spots(state.boards[0], tile) or [(12, 0)])[0][0]
    page.locator(f"#my-space-{space}").tap()
    page.wait_for_selector(f'#my-space-{space}[aria-label^="Select"]', timeout=TIMEOUT)
    page.locator(f"#my-space-{space}").tap()  # select the placed tile: its menu opens
    page.wait_for_selector(f"#my-space-{space}[aria-pressed=true]", timeout=TIMEOUT)
    assert page.url.endswith(f"/games/{game.pk}/?sel=s{space}")
    rotation = game_state(game.pk)[1].boards[0].cells[space].rotation
    page.locator("#tile-menu-clockwise").tap()
    settled(page)
    assert game_state(game.pk)[1].boards[0].cells[space].rotation == (rotation + 1) % 4
    page.keyboard.press("Shift+R")  # and back, anticlockwise
    page.wait_for_function(
        "s => document.getElementById('my-space-' + s) && !document.querySelector('.htmx-request')",
        arg=space,
        timeout=TIMEOUT,
    )
    settled(page)
    assert game_state(game.pk)[1].boards[0].cells[space].rotation == rotation
    page.keyboard.press("Escape")  # put it down
    page.wait_for_selector('.seat.mine [aria-pressed="true"]', state="detached", timeout=TIMEOUT)
    settled(page)
    assert page.url.endswith(f"/games/{game.pk}/")
    assert no_horizontal_scroll(page)


def test_the_game_is_played_with_the_keyboard_alone(open_page, two_player_game):
    game, first = two_player_game
    page = open_page(first)
    open_live(page, f"/games/{game.pk}/")
    _, state = game_state(game.pk)
    tile = state.draw_tiles()[0]

    def focus_by_tabbing(element_id, limit=200):
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement && document.activeElement.id") == element_id:
                outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
                assert outline != "none", "the focused element must show its focus"
                return
        raise AssertionError(f"#{element_id} is not reachable with Tab")

    focus_by_tabbing(f"draw-{tile}")
    page.keyboard.press("Enter")  # draft
    page.wait_for_selector(f"#my-tray-{tile}", timeout=TIMEOUT)
    settled(page)
    focus_by_tabbing(f"my-tray-{tile}")
    page.keyboard.press("Enter")  # select it
    page.wait_for_selector(f"#my-tray-{tile}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    # The address says it (its button has none: live.js writes it, the answer pushes it).
    assert page.url.endswith(f"/games/{game.pk}/?sel=t{tile}")
    _, state = game_state(game.pk)
    space = (legal_spots(state.boards[0], tile) or [(12, 0)])[0][0]
    focus_by_tabbing(f"my-space-{space}")
    page.keyboard.press("Enter")  # place it
    page.wait_for_selector(f"#my-space-{space}.tile-button", timeout=TIMEOUT)  # a placed tile
    settled(page)
    assert game_state(game.pk)[1].boards[0].cells[space] is not None
    rotation = game_state(game.pk)[1].boards[0].cells[space].rotation
    assert page.evaluate("document.activeElement.id") == f"my-space-{space}"
    page.keyboard.press("r")  # rotate the focused tile
    page.wait_for_selector(f"#my-space-{space}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    assert game_state(game.pk)[1].boards[0].cells[space].rotation == (rotation + 1) % 4
    labels = page.locator(".seat.mine [aria-label]").evaluate_all(
        "elements => elements.map(e => e.getAttribute('aria-label'))"
    )
    assert any(f"row {space // 5 + 1}, column {space % 5 + 1}" in label for label in labels)
    # Ctrl+Z undoes the turn of the tile, C confirms the draft: the whole turn without a mouse,
    # and the focus stays on the tile just placed.
    page.keyboard.press("Control+z")
    page.wait_for_function(
        "() => !document.getElementById('redo-arranging').disabled", timeout=TIMEOUT
    )
    settled(page)
    assert game_state(game.pk)[1].boards[0].cells[space].rotation == rotation
    page.keyboard.press("c")
    page.wait_for_selector("#confirm-draft", state="detached", timeout=TIMEOUT)
    settled(page)
    game, state = game_state(game.pk)
    assert state.current != 0 and state.boards[0].cells[space].tile == tile
    assert page.evaluate("document.activeElement.id") == f"my-space-{space}"


def test_colour_blind_shapes_appear_only_when_preferred(open_page, two_player_game):
    game, first = two_player_game
    page = open_page(first)
    page.goto(f"/games/{game.pk}/")
    # Each tile and space refers to its colour's shape in the page's sprite, which has them only
    # then.
    assert page.locator('use[href^="#cb-"]').count() == 0
    assert page.locator("#cb-tile-blue").count() == 0
    first.colour_blind = True
    first.save(update_fields=["colour_blind"])
    page.reload()
    assert page.locator('.seat.mine use[href^="#cb-"]').count() == 25
    assert page.locator('.pool use[href^="#cb-tile-"]').count() >= 40
    assert page.locator(".tile-sprite #cb-tile-blue .cb-shape").count() == 1


def test_the_markers_are_visible_on_a_phone_and_pass_axe(open_page, two_player_game):
    """Stripes on a wrong colour, a broken-circuit icon on each wrong side and a warning
    triangle on each open side, big enough to see on a phone's board and not covered by
    anything, on the player's own board and as the opponent sees it; axe-core still passes."""
    game, first = two_player_game
    second = game.seats.exclude(user=first).get().user
    seat = game.seats.get(user=first).number
    top, _ = mark_every_way(game, seat)
    sides = side_markers(game_state(game.pk)[1].boards[seat])
    broken_sides = sum(
        bool((off | clash) & (1 << top.space))
        for off, clash in zip(sides.off_board, sides.mismatch, strict=True)
    )
    mine, theirs = open_page(first, viewport=PHONE, touch=True), open_page(second, viewport=PHONE)
    for page, board in ((mine, ".seat.mine"), (theirs, f"#seat-{seat}")):
        page.goto(f"/games/{game.pk}/")
        if page is theirs:  # on a phone another player's board opens from its heading
            page.locator(f"#board-toggle-{seat}").click()
            page.wait_for_selector(f"#board-toggle-{seat}[aria-expanded=true]", timeout=TIMEOUT)
        # The marks are the sprite's, each placed on its side: a <use> of it.
        for name in (".tile-stripes", 'use[href^="#mark-broken-"]', 'use[href^="#mark-open-"]'):
            assert page.locator(f"{board} {name}").first.is_visible(), name
        icons = page.locator(f'{board} use[href^="#mark-"]')
        assert icons.count() >= 4  # north and south of the tile above, north of the one below, open
        for i in range(icons.count()):
            icon = icons.nth(i)
            icon.scroll_into_view_if_needed()
            box = icon.bounding_box()
            tile = icon.locator("xpath=ancestor::*[contains(@class, 'space-box')]").bounding_box()
            assert box["width"] >= 14 and box["height"] >= 14, box  # at 390 px wide
            # Inside its tile, clear of the 3 px red rim of an illegal tile (to a fraction of a
            # pixel: the icon is placed in the tile's own units, which scale with the board).
            rim = 3 - 0.25
            assert tile["x"] + rim <= box["x"] <= tile["x"] + tile["width"] - rim - box["width"]
            assert tile["y"] + rim <= box["y"] <= tile["y"] + tile["height"] - rim - box["height"]
            # Nothing is drawn over it: the pointer there finds the icon, and the tile's one
            # tooltip, which says every mark: its button's title (the player's own board) or its
            # drawing's (another's).
            tooltip = """use => {
                const button = use.closest("button[title]");
                const marks = use.closest(".tile-marks");
                return button ? button.title : marks && marks.querySelector("title").textContent;
            }"""
            found = page.evaluate(
                f"""([x, y]) => {{
                    const hit = document.elementFromPoint(x, y);
                    const icon = hit && hit.closest('use[href^="#mark-"]');
                    return icon ? ({tooltip})(icon) : hit && hit.outerHTML.slice(0, 200);
                }}""",
                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 4],
            )
            assert found and found == icon.evaluate(tooltip)
        # The tile above: broken on its north side (off the board) and on its south side.
        above = page.locator(f"{board} .space-box[data-tile='{top.tile_id}']")
        assert above.locator('use[href^="#mark-broken-"]').count() == broken_sides  # 2 or 3
        # What a screen reader hears: the label, and on the player's own board the button's
        # description (its title).
        labelled = above.locator("[aria-label]").first
        said = f"{labelled.get_attribute('aria-label')} {labelled.get_attribute('title') or ''}"
        # North runs off the board; at the board's west or east edge a side more may too, and
        # the label then says them together ("on its north and west sides").
        off_board = re.search(
            r"broken connections? on its ([a-z ]+) sides?: the paths? runs? off the board", said
        )
        assert off_board and "north" in off_board[1].split(), said
        serious, results = serious_violations(page)
        assert serious == [], results.generate_report()

    # On a desktop, with the tile above selected: its menu opens beside it, over no marker of
    # its own, and the board shows every kind of marker (the README's picture of a game).
    desk = open_page(first, viewport={"width": 1366, "height": 768})
    desk.goto(f"/games/{game.pk}/?sel=s{top.space}")
    menu = desk.locator(".seat.mine .tile-menu")
    assert menu.locator("button").count() == 3 and menu.is_visible()
    tile_box = desk.locator(f"#my-space-{top.space}").bounding_box()
    menu_box = menu.bounding_box()
    beside = (
        menu_box["x"] >= tile_box["x"] + tile_box["width"] - 1
        or menu_box["x"] + menu_box["width"] <= tile_box["x"] + 1
    )
    assert beside, (menu_box, tile_box)  # not over the tile
    for name in (".tile-stripes", 'use[href^="#mark-broken-"]', 'use[href^="#mark-open-"]'):
        assert desk.locator(f".seat.mine {name}").first.is_visible(), name
    screenshot(desk, "game-in-progress", full_page=False)  # the window: the table on one screen

    first.colour_blind = True
    first.save(update_fields=["colour_blind"])
    mine.reload()
    assert mine.locator('.seat.mine use[href^="#cb-badge-"]').first.is_visible()
    serious, results = serious_violations(mine)
    assert serious == [], results.generate_report()
    assert mine.errors == [] and theirs.errors == []


@pytest.mark.parametrize("path", ["/", "/games/", "/dashboard/", "GAME", "/accounts/login/"])
def test_main_pages_have_no_serious_accessibility_violations(open_page, two_player_game, path):
    game, first = two_player_game
    page = open_page(None if path == "/accounts/login/" else first)
    page.goto(f"/games/{game.pk}/" if path == "GAME" else path)
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()


def test_a_draft_by_keyboard_keeps_the_focus_confirms_with_c_and_is_announced(
    open_page, two_player_game
):
    """After a draft the focus is on Confirm draft (not the page's body); C confirms; the focus
    then rests on the tile just taken; screen readers hear each move, theirs and the others'."""
    game, first = two_player_game
    second = game.seats.exclude(user=first).get().user
    page, other = open_page(first), open_page(second)
    page.goto(f"/games/{game.pk}/")
    other.goto(f"/games/{game.pk}/")
    _, state = game_state(game.pk)
    tile = state.draw_tiles()[0]

    page.locator(f"#draw-{tile}").focus()
    page.keyboard.press("Enter")  # draft
    page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
    settled(page)
    page.wait_for_function("() => document.activeElement.id === 'confirm-draft'", timeout=TIMEOUT)

    page.keyboard.press("c")  # confirm, one key
    page.wait_for_selector("#confirm-draft", state="detached", timeout=TIMEOUT)
    settled(page)
    page.wait_for_function(f"() => document.activeElement.id === 'my-tray-{tile}'", timeout=TIMEOUT)
    assert game_state(game.pk)[1].pending is None

    words = rules.TILES[tile].colour.value + " " + rules.TILES[tile].kind.value
    page.wait_for_function(
        "w => document.getElementById('game-announcer').textContent.startsWith('You took a ' + w)",
        arg=words,
        timeout=TIMEOUT,
    )
    # The other player's page says it in their words, and that it is their move now.
    other.wait_for_function(
        "() => document.getElementById('game-announcer').textContent.includes('Your move')",
        timeout=TIMEOUT,
    )
    said = other.locator("#game-announcer").text_content()
    assert said.startswith(f"{first.username} took a {words}")

    # With the tile picked up, the arrow keys walk the board's spaces.
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#my-tray-{tile}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    page.locator("#my-space-12").focus()
    for key, expected in (("ArrowUp", 7), ("ArrowRight", 8), ("ArrowDown", 13), ("ArrowLeft", 12)):
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.id") == f"my-space-{expected}"
    page.locator("#my-space-10").focus()
    page.keyboard.press("ArrowLeft")  # the board's edge: no wrapping to the row above
    assert page.evaluate("document.activeElement.id") == "my-space-10"
    assert page.errors == [] and other.errors == []


def test_the_site_is_installable_as_a_web_app(open_page, two_player_game):
    """Chromium finds nothing of the site's that keeps it from being installed (DevTools
    protocol's Page.getInstallabilityErrors on the page it opens from the home screen)."""
    _, first = two_player_game
    page = open_page(first)
    page.goto("/dashboard/")
    page.wait_for_load_state("load")
    session = page.context.new_cdp_session(page)
    manifest = session.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest") and not manifest.get("errors")
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # Playwright's browser contexts are off the record, which Chrome never installs from; any
    # other reason (manifest, icons, start URL, service worker) is the site's.
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []
