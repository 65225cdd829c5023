"""The game page on a phone (390 x 844): a turn is played in one window, every control is a
target a finger can hit, and the other players' boards open one at a time and stay open while
the game moves on. The same page on a desktop keeps every board in sight."""

from datetime import timedelta

import pytest

from games import rules
from games.play import actions
from games.rules.analysis import legal_spots
from tests.games.playing import current_state, next_move
from tests.history.playing import play_recorded

from .helpers import TIMEOUT, click_and_wait, game_state, serious_violations, settled, shows_version

pytestmark = pytest.mark.servers

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
FINGER = 44  # CSS px: the smallest target a finger hits reliably

# Every control a player can reach: what the finger (or the Tab key) may press.
CONTROLS = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])"


def start(make_player, committed, players=2, drafts=0):
    """A started game of `players` whose first `drafts` drafts were played (each tile placed
    where a greedy player would place it); return it and its players by seat."""
    users = [make_player(name) for name in ("ada", "brian", "cora", "dan", "eve")[:players]]
    game = actions.create_game(
        creator=users[0], player_count=players, time_per_move=timedelta(days=1)
    )
    for user in users[1:]:
        committed(actions.join_game, game_id=game.pk, user=user)
    game.refresh_from_db()
    by_seat = [seat.user for seat in game.seats.order_by("number")]
    while True:
        move = next_move(game)
        if move is None or (
            isinstance(move[1], rules.Draft) and current_state(game).drafts >= drafts
        ):
            break
        seat, action = move
        committed(
            actions.play, game_id=game.pk, user=by_seat[seat], action=action, seen_version=None
        )
    game.refresh_from_db()
    return game, by_seat


def box(page, selector):
    """Where the element is drawn. A socket that connected after the page's first move resyncs
    the whole game (the version in its address is the page load's), so the element may be
    between two drawings for a moment: wait for it to be shown again."""
    element = page.locator(selector).first
    for _ in range(3):
        element.wait_for(state="visible", timeout=TIMEOUT)
        found = element.bounding_box()
        if found is not None:
            return found
    raise AssertionError(f"{selector} is not shown")


def window_above_the_bar(page):
    """The part of the window the docked action bar leaves free: (top, bottom) in CSS px."""
    bar = box(page, "#game-status .action-bar")
    assert (
        page.evaluate(
            "() => getComputedStyle(document.querySelector('#game-status .action-bar')).position"
        )
        == "fixed"
    ), "the action bar is docked on a phone"
    assert bar["y"] + bar["height"] <= PHONE["height"] + 0.5
    return 0, bar["y"]


def within(found, top, bottom):
    return found["y"] >= top - 0.5 and found["y"] + found["height"] <= bottom + 0.5


def uncovered(page, selector):
    """Whether a tap on the middle of the element reaches it (nothing is drawn over it)."""
    return page.evaluate(
        """s => {
          const element = document.querySelector(s);
          const r = element.getBoundingClientRect();
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return !!hit && (hit === element || element.contains(hit));
        }""",
        selector,
    )


def too_small(page):
    """The shown controls of the page smaller than a finger, as 'tag#id "words" WxH'."""
    return page.evaluate(
        """([selector, finger]) => [...document.querySelectorAll(selector)]
          .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
          .map(e => [e, e.getBoundingClientRect()])
          .filter(([e, r]) => r.width < finger - 0.5 || r.height < finger - 0.5)
          .map(([e, r]) => `${e.tagName.toLowerCase()}#${e.id}`
            + ` "${e.textContent.trim().slice(0, 30)}"`
            + ` ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        [CONTROLS, FINGER],
    )


@pytest.mark.parametrize(
    ("players", "drafts"),
    [(2, 2), (5, 0)],  # early in a game; the tallest pool: columns of 6, the first full
)
def test_a_phone_drafts_confirms_and_sees_the_tile_in_its_tray_in_one_window(
    open_page, make_player, committed, players, drafts
):
    game, by_seat = start(make_player, committed, players=players, drafts=drafts)
    _, state = game_state(game.pk)
    me = by_seat[state.current]
    tile = state.draw_tiles()[0]
    page = open_page(me, viewport=PHONE, touch=True)
    page.goto(f"/games/{game.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # One scroll, to the pool; from here the turn is played without scrolling.
    page.locator("#pool").evaluate("pool => pool.scrollIntoView({block: 'start'})")
    scrolled = page.evaluate("window.scrollY")
    top, bottom = window_above_the_bar(page)
    draw_column = box(page, ".pool .draw-column")
    assert within(draw_column, top, bottom), (draw_column, bottom)
    assert box(page, f"#draw-{tile}")["width"] >= FINGER

    page.locator(f"#draw-{tile}").tap()
    page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
    settled(page)
    top, bottom = window_above_the_bar(page)
    confirm = box(page, "#confirm-draft")
    assert confirm["y"] >= bottom and confirm["y"] + confirm["height"] <= PHONE["height"]
    assert uncovered(page, "#confirm-draft")
    assert within(box(page, f"#my-tray-{tile}"), top, bottom), "the drafted tile shows in the tray"
    assert within(box(page, ".pool .draw-column"), top, bottom)
    # (The README's picture of a phone is test_table_in_browser's, in the middle of a game.)

    page.locator("#confirm-draft").tap()
    page.wait_for_selector("#confirm-draft", state="detached", timeout=TIMEOUT)
    settled(page)
    assert game_state(game.pk)[1].pending is None
    top, bottom = window_above_the_bar(page)
    assert within(box(page, f"#my-tray-{tile}"), top, bottom)
    assert uncovered(page, f"#my-tray-{tile}")
    assert page.evaluate("window.scrollY") == scrolled, "nothing scrolled the page"

    # The tile is placed on the board in the same window: tray and board are both in it.
    page.locator(f"#my-tray-{tile}").tap()
    page.wait_for_selector(f"#my-tray-{tile}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    assert within(box(page, ".seat.mine .board"), top, bottom)
    board = game_state(game.pk)[1].boards[state.current]
    spots = [space for space, _ in legal_spots(board, tile)]
    spots += [space for space, cell in enumerate(board.cells) if cell is None]  # fits nowhere
    page.locator(f"#my-space-{spots[0]}").tap()
    page.wait_for_selector(f"#my-tray-{tile}", state="detached", timeout=TIMEOUT)
    settled(page)
    assert page.locator(f'.seat.mine .space-box[data-tile="{tile}"]').count() == 1
    assert page.evaluate("window.scrollY") == scrolled
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()
    assert page.errors == []


def test_every_control_on_a_phone_is_at_least_44_px(open_page, make_player, committed):
    game, by_seat = start(make_player, committed, drafts=2)
    _, state = game_state(game.pk)
    me = by_seat[state.current]
    tile = state.draw_tiles()[0]
    page = open_page(me, viewport=PHONE, touch=True)
    page.goto(f"/games/{game.pk}/")
    assert too_small(page) == []  # the draw column's tiles, the menu, the other board's button
    # The docked bar hides nothing for good: scrolled to the end, the page's last line is above it.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    _, bottom = window_above_the_bar(page)
    footer = box(page, ".site-footer p")
    assert footer["y"] + footer["height"] <= bottom + 0.5, (footer, bottom)

    page.locator(f"#draw-{tile}").tap()
    page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
    settled(page)
    assert too_small(page) == []  # Confirm draft, Undo, the tray's tiles, the board's spaces

    placed = next(
        i for i, cell in enumerate(game_state(game.pk)[1].boards[state.current].cells) if cell
    )
    page.locator(f"#my-space-{placed}").tap()  # a placed tile: its menu of three buttons
    page.wait_for_selector(f"#my-space-{placed}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    page.locator("[data-board-toggle]").first.tap()  # the other board, open
    page.wait_for_selector("[data-board-toggle][aria-expanded=true]", timeout=TIMEOUT)
    assert page.locator(".tile-menu button").count() == 3
    assert too_small(page) == []


def test_the_other_boards_open_one_at_a_time_and_stay_open_as_the_game_moves(
    open_page, make_player, committed
):
    game, by_seat = start(make_player, committed, players=3)
    _, state = game_state(game.pk)
    drafter = state.current
    me = (drafter + 1) % 3  # drafts next
    third = (drafter + 2) % 3
    page = open_page(by_seat[me], viewport=PHONE, touch=True)
    page.goto(f"/games/{game.pk}/")

    def shown(seat):
        return page.locator(f"#seat-{seat}-board").is_visible()

    def expanded(seat):
        return page.locator(f"#board-toggle-{seat}").get_attribute("aria-expanded") == "true"

    assert not shown(drafter) and not shown(third), "the other boards start folded"
    assert shown(me)
    assert page.locator(f"#board-toggle-{drafter}").get_attribute("aria-controls") == (
        f"seat-{drafter}-board seat-{drafter}-tray"
    )
    page.locator(f"#board-toggle-{third}").tap()
    assert shown(third) and expanded(third)
    # The keyboard opens another: the one open before folds.
    page.locator(f"#board-toggle-{drafter}").focus()
    page.keyboard.press("Enter")
    assert shown(drafter) and expanded(drafter)
    assert not shown(third) and not expanded(third)
    opened = box(page, f"#seat-{drafter}-board")
    assert opened["width"] >= 300, "an open board takes the width of the phone"

    # The drafter plays in their own browser: this page's pushes redraw the drafter's board.
    other = open_page(by_seat[drafter])
    other.goto(f"/games/{game.pk}/")
    tile = state.draw_tiles()[0]
    click_and_wait(other, f"#draw-{tile}", game.pk)
    version = click_and_wait(other, "#confirm-draft", game.pk)
    shows_version(page, version)
    settled(page)
    assert "1 tile in tray" in page.locator(f"#seat-{drafter}-time").text_content()
    assert shown(drafter) and expanded(drafter), "a push keeps the open board open"
    assert not shown(third)

    # This page's own move redraws the whole game: the board stays open.
    _, state = game_state(game.pk)
    assert state.current == me
    page.locator(f"#draw-{state.draw_tiles()[0]}").tap()
    page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
    settled(page)
    assert shown(drafter) and expanded(drafter), "the page's own move keeps it open"

    # Pressed again, it folds; the choice lasts over a reload of the tab.
    page.locator(f"#board-toggle-{drafter}").tap()
    assert not shown(drafter) and not expanded(drafter)
    page.locator(f"#board-toggle-{third}").tap()
    page.reload()
    assert shown(third) and expanded(third) and not shown(drafter)
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()
    assert page.errors == [] and other.errors == []


def test_a_desktop_shows_every_board_with_the_turns_buttons_in_place(
    open_page, make_player, committed
):
    game, by_seat = start(make_player, committed, players=3)
    _, state = game_state(game.pk)
    me = state.current
    page = open_page(by_seat[me], viewport=DESKTOP)
    page.goto(f"/games/{game.pk}/")
    for seat in range(3):
        assert page.locator(f"#seat-{seat}-board").is_visible()
    assert page.locator("[data-board-toggle]:visible").count() == 0
    assert page.locator(".seat:not(.mine) h2 .seat-name").first.is_visible()

    page.locator(f"#draw-{state.draw_tiles()[0]}").click()
    page.wait_for_selector("#confirm-draft", timeout=TIMEOUT)
    settled(page)
    position = page.evaluate(
        "() => getComputedStyle(document.querySelector('#game-status .action-bar')).position"
    )
    assert position == "static", "on a desktop the status stays at the top of the game"
    status, pool = box(page, "#game-status"), box(page, "#pool")
    assert box(page, "#confirm-draft")["y"] < pool["y"] and status["y"] < pool["y"]
    # The pool's twelve columns share its width alike, as before.
    widths = page.locator(".pool .column").evaluate_all(
        "columns => columns.map(c => Math.round(c.getBoundingClientRect().width))"
    )
    assert len(widths) == 12 and max(widths) - min(widths) <= 1
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_an_ended_game_and_its_replay_fit_a_phones_width(open_page, make_player, committed):
    game, by_seat = start(make_player, committed, players=3)
    play_recorded(game)
    page = open_page(by_seat[0], viewport=PHONE, touch=True)
    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/replay/?step=30"):
        page.goto(path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        assert page.locator(".results table").is_visible()
        # The replay's boards fold as the game's do (all three: none is yours to play there),
        # and open one at a time.
        mine = page.locator(".seat.mine").count()
        toggles = page.locator("[data-board-toggle]")
        assert toggles.count() == 3 - mine
        toggles.nth(0).tap()
        toggles.nth(1).tap()
        assert page.locator(".seat:not(.folded)").count() == mine + 1
        assert (
            page.locator(".seat:not(.folded) [data-board-toggle]").get_attribute("aria-expanded")
            == "true"
        )
        assert too_small(page) == [], path
    assert page.errors == []
