"""A visitor's first five minutes, in Chromium: from the home page to a finished game as a
guest in a few clicks besides the moves, then signed up with the game kept; the guided game on
a phone; axe-core on the home page and the guided game; the pictures of the README's and
docs/playing.md's (MICROCHIP_SCREENSHOTS)."""

import re

import pytest

from accounts.models import User
from games import rules
from games.models import Game
from games.rules.greedy import choose_draft
from games.rules.tiles import TILES, Kind
from tests.e2e.conftest import screenshot
from tests.e2e.helpers import (
    TIMEOUT,
    click_and_wait,
    game_state,
    place_where_it_fits,
    select_tray_tile,
    serious_violations,
    settled,
    shows_at_least,
)

pytestmark = pytest.mark.servers

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def game_id_of(page) -> int:
    page.wait_for_url(re.compile(r"/games/\d+/$"), timeout=TIMEOUT)
    return int(re.search(r"/games/(\d+)/", page.url).group(1))


def wait_for_turn(page, game_id, seat):
    """Wait until the game is at `seat`'s draft (the computer's moves and the worker's forced
    takes come in live), or past the drafting; the game and its state then."""
    while True:
        game, state = game_state(game_id)
        if state.phase != rules.DRAFTING:
            return game, state
        if state.current == seat and state.forced_action() is None and state.pending is None:
            shows_at_least(page, game.version, timeout=TIMEOUT * 2)
            return game, state
        page.wait_for_function(
            "v => Number(document.getElementById('game').dataset.version) > v",
            arg=game.version,
            timeout=TIMEOUT * 2,
        )


def test_a_new_visitor_plays_a_whole_game_as_a_guest_then_signs_up_and_keeps_it(open_page, server):
    page = open_page(viewport=DESKTOP)
    clicks = 0  # besides the moves themselves
    page.goto("/")
    page.get_by_role("button", name="Play now against the computer").click()
    clicks += 1
    game_id = game_id_of(page)
    guest = User.objects.get(is_guest=True)
    seat = Game.objects.get(pk=game_id).seats.get(user=guest).number
    assert page.get_by_role("link", name="Sign up to keep this game").is_visible()

    while True:
        game, state = wait_for_turn(page, game_id, seat)
        if state.phase != rules.DRAFTING:
            break
        tile = choose_draft(state, seat).tile_id
        click_and_wait(page, f"#draw-{tile}", game_id)
        place_where_it_fits(page, game_id, seat, tile)
        click_and_wait(page, "button:has-text('Confirm draft')", game_id)

    game, state = game_state(game_id)
    shows_at_least(page, game.version, timeout=TIMEOUT * 2)
    click_and_wait(page, "button:has-text('Finish')", game_id)  # a move: the last one
    page.wait_for_selector("section.results", timeout=TIMEOUT * 4)  # the computer finishes
    assert Game.objects.get(pk=game_id).status == Game.Status.ENDED

    page.get_by_role("link", name="Sign up to keep this game").first.click()
    clicks += 1
    page.fill("input[name=email]", "newcomer@example.com")
    page.fill("input[name=username]", "Newcomer")
    page.fill("input[name=password1]", "a-long-Passphrase-42")
    page.fill("input[name=password2]", "a-long-Passphrase-42")
    page.locator("main form button[type=submit]").click()
    clicks += 1
    page.wait_for_url("**/accounts/confirm-email/")
    link = None
    for _ in range(50):  # the default set-up prints the email on the server's console
        found = re.findall(r"http://\S+/accounts/confirm-email/\S+/", server.log())
        if found:
            link = found[-1]
            break
        page.wait_for_timeout(100)
    assert link, "no confirmation email on the server's console"
    page.goto(link)  # the email's link: not a click on the site
    page.wait_for_url(f"**/games/{game_id}/")  # signed in, back at the game kept
    assert page.locator("section.results").is_visible()
    page.get_by_role("link", name="Newcomer").first.click()
    clicks += 1
    page.get_by_role("link", name=re.compile("All games")).first.click()
    clicks += 1
    page.wait_for_url("**/players/Newcomer/games/**")
    assert page.locator(f'a[href="/games/{game_id}/"]').count() >= 1
    assert clicks < 10
    newcomer = User.objects.get(username="Newcomer")
    assert newcomer.pk == guest.pk and not newcomer.is_guest
    assert page.errors == []


def guided_step(page, title):
    page.wait_for_selector(f"#guide .guide-head:has-text('{title}')", timeout=TIMEOUT)


# Where a part of the page is against the window and the floating guide: whether it is in the
# window, clear of the guide (above it, or beside it).
IN_VIEW = """selector => {
  const box = document.querySelector(selector).getBoundingClientRect();
  const guide = document.getElementById("guide").getBoundingClientRect();
  const bar = parseFloat(getComputedStyle(document.documentElement)
    .getPropertyValue("--action-bar-height")) || 0;
  const beside = box.right <= guide.left || box.left >= guide.right;
  return box.top >= 0 && box.bottom <= window.innerHeight - bar
    && (beside || box.bottom <= guide.top);
}"""


def the_guide_floats_and_points_in_view(page, selector):
    """The guide floats over the window (the table is not pushed down by it) and the part of
    the page its step is about is in view, clear of it."""
    settled(page)
    page.wait_for_function(f"() => ({IN_VIEW})({selector!r})", timeout=TIMEOUT)
    assert page.evaluate("getComputedStyle(document.getElementById('guide')).position") == "fixed"


def test_the_guided_game_on_a_phone_points_at_each_step_and_passes_axe(open_page):
    page = open_page(viewport=PHONE, touch=True)
    page.goto("/")
    page.get_by_role("button", name="Learn by playing: a guided game").click()
    game_id = game_id_of(page)
    guided_step(page, "Take a tile")
    assert page.locator("#pool .draw-column.guide-target").count() == 1
    the_guide_floats_and_points_in_view(page, "#pool .draw-column")
    assert page.evaluate("window.scrollY") == 0  # in view already: no scrolling
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()

    _game, state = game_state(game_id)
    first = next(tile for tile in state.draw_tiles() if TILES[tile].kind == Kind.END)
    click_and_wait(page, f"#draw-{first}", game_id)
    guided_step(page, "Confirm your draft")
    assert page.locator("#confirm-draft.guide-target").count() == 1
    click_and_wait(page, "#confirm-draft", game_id)
    guided_step(page, "Place it on its colour")
    the_guide_floats_and_points_in_view(page, ".seat.mine .tray")
    _game, state = game_state(game_id)
    colours = state.boards[0].colours
    here = next(
        space for space in range(25)
        if colours[space] == TILES[first].colour and space % 5 < 4 and space < 20
    )  # fmt: skip
    select_tray_tile(page, first)
    click_and_wait(page, f"#my-space-{here}", game_id)
    guided_step(page, "Turn it")
    the_guide_floats_and_points_in_view(page, f"#my-space-{here}")
    screenshot(page, "guided-game-phone", full_page=False)
    page.locator(f"#my-space-{here}").tap()  # a placed tile: its menu of three buttons
    page.wait_for_selector(f"#my-space-{here}[aria-pressed=true]", timeout=TIMEOUT)
    settled(page)
    click_and_wait(page, "#tile-menu-clockwise", game_id)
    guided_step(page, "Join two paths")
    settled(page)
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()
    # Put away, and back.
    page.get_by_role("button", name="Skip the guide").click()
    page.wait_for_selector("#guide.skipped", timeout=TIMEOUT)
    assert page.locator(".guide-target").count() == 0
    page.get_by_role("button", name="Show the guide again").click()
    guided_step(page, "Join two paths")
    assert page.errors == []


def test_the_home_page_and_the_help_look_right_and_pass_axe(open_page):
    page = open_page(viewport=DESKTOP)
    page.goto("/")
    assert page.locator("#showcase .demo-tiles:not([hidden])").count() == 2
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()
    screenshot(page, "home-visitor", full_page=False)
    # The replayed game moves: another frame shows within a few seconds.
    last = page.locator("#showcase .demo-tiles").count() // 2 - 1
    page.wait_for_function(
        f"() => !document.querySelector('#showcase .demo-tiles.f{last}:not([hidden])')",
        timeout=TIMEOUT,
    )
    phone = open_page(viewport=PHONE, touch=True)
    phone.goto("/")
    serious, results = serious_violations(phone)
    assert serious == [], results.generate_report()
    screenshot(phone, "home-visitor-phone", full_page=False)

    # The guided game mid-way, and How to play with its pictures, on a laptop.
    page.get_by_role("button", name="Learn by playing: a guided game").click()
    game_id = game_id_of(page)
    guided_step(page, "Take a tile")
    the_guide_floats_and_points_in_view(page, "#pool .draw-column")
    # The table starts under the guest's one line, as in any game: the guide is not above it.
    assert page.evaluate("document.getElementById('game').getBoundingClientRect().top") < 140
    assert page.evaluate("window.scrollY") == 0
    screenshot(page, "guided-game-start", full_page=False)
    _game, state = game_state(game_id)
    first = next(tile for tile in state.draw_tiles() if TILES[tile].kind == Kind.END)
    click_and_wait(page, f"#draw-{first}", game_id)
    click_and_wait(page, "#confirm-draft", game_id)
    guided_step(page, "Place it on its colour")
    the_guide_floats_and_points_in_view(page, ".seat.mine .tray")
    screenshot(page, "guided-game", full_page=False)
    page.locator("#rules-help summary").click()
    page.locator("#rules-help .tiles-explained").scroll_into_view_if_needed()
    assert page.locator("#rules-help .five-tiles li").count() == 5
    screenshot(page, "rules-help-pictures", full_page=False)
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()
    assert page.errors == [] and phone.errors == []
