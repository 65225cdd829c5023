"""The table on one screen: on a turn in the middle of a game (eight tiles in the tray), the draw
column, the player's whole board and whole tray are in the window together, with the status line
and the turn's buttons, on a laptop, a large and a small desktop screen and a phone, for two and
for five players; nothing moves while the game goes on (the other boards, the pool's tiles); and
an ended game leads with its results."""

import pytest

from games import rules
from games.play import actions

from .conftest import screenshot
from .helpers import TIMEOUT, game_state, settled, shows_version
from .tables import finishing, mid_game

pytestmark = pytest.mark.slow

SCREENS = {
    "laptop": ({"width": 1366, "height": 768}, False),
    "desktop": ({"width": 1920, "height": 1080}, False),
    "small desktop": ({"width": 1280, "height": 720}, False),
    "phone": ({"width": 390, "height": 844}, True),
}

# Where an element is drawn in the window: [left, top, right, bottom], in CSS px.
WHERE = """selector => {
  const element = document.querySelector(selector);
  if (!element || !element.getClientRects().length) return null;
  const r = element.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom];
}"""


def where(page, selector):
    found = page.evaluate(WHERE, selector)
    assert found is not None, f"{selector} is not shown"
    return found


def window(page):
    """The part of the window nothing covers, [left, top, right, bottom]: on a phone, above the
    docked status bar."""
    width, height = page.evaluate("[window.innerWidth, window.innerHeight]")
    bar = page.evaluate(
        """() => { const bar = document.querySelector('#game-status .action-bar');
          return bar && getComputedStyle(bar).position === 'fixed'
            ? bar.getBoundingClientRect().top : null; }"""
    )
    return [0, 0, width, height if bar is None else bar]


def in_sight(box, area):
    left, top, right, bottom = area
    return (
        box[0] >= left - 0.5
        and box[1] >= top - 0.5
        and box[2] <= right + 0.5
        and (box[3] <= bottom + 0.5)
    )


def uncovered(page, selector):
    """Whether a click on the middle of the element reaches it (nothing is drawn over it)."""
    return page.evaluate(
        """s => { const e = document.querySelector(s); const r = e.getBoundingClientRect();
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return !!hit && (hit === e || e.contains(hit)); }""",
        selector,
    )


def assert_one_screen(page, me, name):
    """The draw column, the player's board and tray, whole, in the window without a scroll, and
    the status line with them; nothing wider than the window."""
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
    area = window(page)
    for selector in (".pool .draw-column", f"#seat-{me}-board", f"#seat-{me}-tray"):
        box = where(page, selector)
        assert in_sight(box, area), (name, selector, box, area)
    status = where(page, "#game-status .phase")
    assert in_sight(status, [0, 0, area[2], page.evaluate("window.innerHeight")]), (name, status)


def shows_whole_placeholder(page, selector):
    """Whether the text box is wide enough for its placeholder ("Message to the table")."""
    return page.evaluate(
        """s => { const box = document.querySelector(s); const style = getComputedStyle(box);
          const pen = document.createElement('canvas').getContext('2d'); pen.font = style.font;
          const room = box.clientWidth - parseFloat(style.paddingLeft)
            - parseFloat(style.paddingRight);
          return pen.measureText(box.placeholder).width <= room + 0.5; }""",
        selector,
    )


def tiles_in(page, selector):
    """The top of each tile of the element, by tile id."""
    return page.evaluate(
        """s => Object.fromEntries(Array.from(document.querySelectorAll(`${s} [data-tile]`),
          e => [e.dataset.tile, Math.round(e.getBoundingClientRect().top)]))""",
        selector,
    )


def other_boards(page):
    """Where each other player's board starts: [id, left, top, width]."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('#game .seat:not(.mine)'), e => {
          const r = e.getBoundingClientRect();
          return [e.id, Math.round(r.left), Math.round(r.top), Math.round(r.width)]; })"""
    )


@pytest.mark.parametrize("players", [2, 5])
def test_a_turn_is_played_on_one_screen_on_every_device(open_page, make_player, committed, players):
    game, by_seat, me = mid_game(make_player, committed, players=players)
    _, state = game_state(game.pk)
    assert state.current == me and len(state.trays[me]) == 8
    for name, (viewport, touch) in SCREENS.items():
        page = open_page(by_seat[me], viewport=viewport, touch=touch)
        page.goto(f"/games/{game.pk}/")
        settled(page)
        assert_one_screen(page, me, name)
        assert shows_whole_placeholder(page, "#chat-text"), name

        # A draft: its buttons show with the board, and the column's other tiles stay where
        # they were dealt (the taken tile's place is kept).
        before = tiles_in(page, ".pool .draw-column")
        column = dict(before)
        _, state = game_state(game.pk)
        tile = state.draw_tiles()[len(state.draw_tiles()) // 2]
        with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
            page.locator(f"#draw-{tile}").click()
        page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
        settled(page)
        assert_one_screen(page, me, name)
        area = window(page)
        for button in ("#confirm-draft", "#undo-draft"):
            box = where(page, button)
            assert (
                box[0] >= 0 and box[2] <= area[2] and box[3] <= page.evaluate("window.innerHeight")
            ), (name, button, box)
            assert uncovered(page, button), (name, button)
        del column[str(tile)]
        assert tiles_in(page, ".pool .draw-column") == column, name
        assert in_sight(where(page, f"#my-tray-{tile}"), area), (name, "the drafted tile")
        if name == "phone" and players == 2:
            screenshot(page, "phone", full_page=False)

        # Undone, the game is as it was for the next screen.
        with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
            page.locator("#undo-draft").click()
        page.wait_for_selector("#confirm-draft", state="detached", timeout=TIMEOUT)
        settled(page)
        assert tiles_in(page, ".pool .draw-column") == before, name
        assert page.errors == [], name
        page.context.close()


@pytest.mark.parametrize("players", [2, 5])
def test_the_other_boards_stay_in_their_place_as_the_turn_passes(
    open_page, make_player, committed, players
):
    game, by_seat, me = mid_game(make_player, committed, players=players, placed=0)
    for name in ("laptop", "desktop"):
        _until_the_turn_of(me, game, by_seat, committed)
        viewport, _ = SCREENS[name]
        page = open_page(by_seat[me], viewport=viewport)
        page.goto(f"/games/{game.pk}/")
        settled(page)
        mine = other_boards(page)
        assert len(mine) == players - 1
        for _, left, _top, width in mine:
            assert left >= 0 and left + width <= viewport["width"], (name, mine)

        # The player drafts and confirms: the turn passes, their Drafting-ahead panel opens.
        _, state = game_state(game.pk)
        with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
            page.locator(f"#draw-{state.draw_tiles()[0]}").click()
        page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
        settled(page)
        with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
            page.locator("#confirm-draft").click()
        page.wait_for_selector("#confirm-draft", state="detached", timeout=TIMEOUT)
        settled(page)
        assert other_boards(page) == mine, name
        # And as the next player drafts, live.
        _draft_once(game, by_seat, committed)
        shows_version(page, game_state(game.pk)[0].version)
        settled(page)
        assert other_boards(page) == mine, name
        assert page.errors == [], name
        page.context.close()


def _draft_once(game, by_seat, committed):
    """The player whose turn it is drafts the top tile and confirms (or the server takes the
    column's last tile)."""
    _, state = game_state(game.pk)
    if state.forced_action() is not None:
        committed(actions.take_last_tile, game_id=game.pk)
        return
    user = by_seat[state.current]
    for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
        committed(actions.play, game_id=game.pk, user=user, action=action, seen_version=None)


def _until_the_turn_of(me, game, by_seat, committed):
    while True:
        _, state = game_state(game.pk)
        if state.current == me and state.forced_action() is None:
            return
        _draft_once(game, by_seat, committed)


def test_an_ended_game_leads_with_its_results_live_and_after_a_reload(
    open_page, make_player, committed
):
    game, by_seat, (first, last) = finishing(make_player, committed, players=2, waiting=2)
    pages = {}
    for name, (viewport, touch) in SCREENS.items():
        page = open_page(by_seat[first], viewport=viewport, touch=touch)
        page.goto(f"/games/{game.pk}/")
        settled(page)
        # The finishing phase: Finish shows with the board.
        area = window(page)
        assert in_sight(where(page, f"#seat-{first}-board"), area), name
        finish = where(page, "#game-status .finish")
        assert finish[3] <= page.evaluate("window.innerHeight") and finish[2] <= area[2], name
        pages[name] = page
    # The first of the two finishes on the laptop; the other finishes from elsewhere: every page
    # draws the end live, the results on top.
    laptop = pages["laptop"]
    with laptop.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
        laptop.locator("#game-status .finish").click()
    settled(laptop)
    committed(
        actions.play, game_id=game.pk, user=by_seat[last], action=rules.Finish(), seen_version=None
    )
    game, _ = game_state(game.pk)
    assert game.status == "ended"
    for reloaded in (False, True):
        for name, page in pages.items():
            if reloaded:
                page.reload()
            page.wait_for_selector("#results", timeout=TIMEOUT)
            settled(page)
            results = where(page, "#results")
            assert results[1] < 200, (name, results)
            for selector in ("#results .winner-line", "#results .your-result", "#results table"):
                assert in_sight(where(page, selector), window(page)), (name, selector)
            words = page.locator("#results .your-result").inner_text()
            assert words.startswith("You placed"), words
            # The boards, the best possible chips and the replay follow.
            assert where(page, f"#seat-{first}-board")[1] > results[3], name
            assert where(page, ".replay-link")[1] > results[3], name
            if name == "laptop" and reloaded:
                screenshot(page, "results", full_page=False)
            assert page.errors == [], name


def test_a_tray_tile_chosen_by_keyboard_sends_the_focus_to_the_board(
    open_page, make_player, committed
):
    game, by_seat, me = mid_game(make_player, committed, players=2, tray=2, placed=0)
    page = open_page(by_seat[me], viewport=SCREENS["laptop"][0])
    page.goto(f"/games/{game.pk}/")
    settled(page)
    _, state = game_state(game.pk)
    tile = state.trays[me][0]
    page.locator(f"#my-tray-{tile}").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#my-tray-{tile}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    # The focus is on the board, on a space the tile fits: the arrow keys walk it at once.
    focused = page.evaluate("document.activeElement.id")
    assert focused.startswith("my-space-"), focused
    assert page.evaluate(
        "document.activeElement.closest('.space-box').classList.contains('legal')"
    ) == bool(rules.legal_spots(state.boards[me], tile))
    # Away and back (at the board's right edge, leftwards first: the arrows stop at the edge).
    at_right_edge = int(focused.split("-")[-1]) % 5 == 4
    away, back = ("ArrowLeft", "ArrowRight") if at_right_edge else ("ArrowRight", "ArrowLeft")
    page.keyboard.press(away)
    assert page.evaluate("document.activeElement.id") != focused
    page.keyboard.press(back)
    assert page.evaluate("document.activeElement.id") == focused
    with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
        page.keyboard.press("Enter")
    page.wait_for_selector(f"#my-tray-{tile}", state="detached", timeout=TIMEOUT)
    assert game_state(game.pk)[1].boards[me].cells[int(focused.split("-")[-1])].tile == tile
    assert page.errors == []


def test_htmx_applies_no_inline_style_when_it_redraws_a_part_that_has_one(
    open_page, make_player, committed
):
    """The Content Security Policy allows no inline style. htmx copies a redrawn element's
    `style` attribute from the element it replaces while it settles (`attributesToSettle`):
    an element that a script styled (a custom property set on it, as phone.js sets one on the
    page) made every redraw of it a violation. The page tells htmx to settle no style."""
    game, by_seat, me = mid_game(make_player, committed, players=2, tray=2, placed=0)
    page = open_page(by_seat[me], viewport=SCREENS["laptop"][0])
    page.goto(f"/games/{game.pk}/")
    settled(page)
    for part in ("#game-status", f"#seat-{me}-tray-title", "#pool-title"):
        page.evaluate("s => document.querySelector(s).style.setProperty('--probe', '1')", part)
    _, state = game_state(game.pk)
    with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT):
        page.locator(f"#draw-{state.draw_tiles()[0]}").click()
    page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
    settled(page)
    page.wait_for_timeout(100)  # the settling's last step
    assert page.errors == []
