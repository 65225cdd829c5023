"""Driving a game page by clicking, the way a player does, and waiting for what htmx swaps in."""

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games import rules
from games.models import Game
from games.rules.analysis import legal_spots
from games.state_store import load_state, read_game

TIMEOUT = 15_000


def game_state(game_id):
    # One statement, one moment: the worker may take a column's last tile between two reads.
    game, seats = read_game(game_id)
    return game, load_state(game, seats)


def shows_version(page, version):
    """Wait until the page shows `version` of the game (after its own move or a live push)."""
    page.wait_for_selector(f'#game[data-version="{version}"]', state="attached", timeout=TIMEOUT)


def shows_at_least(page, version, timeout=TIMEOUT):
    """Wait until the page shows `version` of the game or a later one (other players, a
    computer player or the server may have moved again since)."""
    page.wait_for_function(
        "v => Number(document.getElementById('game').dataset.version) >= v",
        arg=version,
        timeout=timeout,
    )


# The server's first word on a game page's new socket: "synced" once it has joined the game's
# channels, or a "resync" redrawing a page that was behind by then.
NOTE_THE_SOCKET = """
window.__live = false;
document.addEventListener("htmx:wsBeforeMessage", (event) => {
  const said = String(event.detail.message);
  if (said.includes('"synced"') || said.includes('"resync"')) window.__live = true;
});
"""


def open_live(page, path):
    """Load the page at `path` and wait until its socket has caught up with the game: a move
    made before would otherwise be redrawn by the socket's resync under the test's feet (and
    the element it focused, gone with the redraw, would take no key)."""
    page.add_init_script(NOTE_THE_SOCKET)
    page.goto(path)
    page.wait_for_function("() => window.__live", timeout=TIMEOUT)


def settled(page):
    """Wait until htmx has no request in flight and nothing left to swap."""
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')",
        timeout=TIMEOUT,
    )


def click_and_wait(page, selector, game_id):
    """Click a control that posts a move; wait for its answer to be swapped in."""
    with page.expect_response(lambda response: "/act/" in response.url, timeout=TIMEOUT) as answer:
        page.locator(selector).first.click()
    response = answer.value
    assert response.status == 200, f"{response.status} {response.url}: {response.text()[-1500:]}"
    settled(page)
    return Game.objects.get(pk=game_id).version


def select(page, element_id):
    """Select a tile of the player's own (tray or board) and wait until the page shows it.

    A push that redraws the player's own seat (a tile the server took for them, as the
    computer player moved) draws it as no page has picked anything up: landing just after the
    click, it takes the selection back, as it would for a person, who would click again."""
    pressed = f"#{element_id}[aria-pressed=true]"
    for attempt in range(3):
        settled(page)  # a slow answer to the click before lands first
        if page.locator(pressed).count():
            break
        page.locator(f"#{element_id}").click()
        try:
            page.wait_for_selector(pressed, timeout=TIMEOUT / 3)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    settled(page)


def select_tray_tile(page, tile):
    select(page, f"my-tray-{tile}")


def place_where_it_fits(page, game_id, seat, tile):
    """Select a tray tile and click a highlighted space, if it fits anywhere. Return the space."""
    _, state = game_state(game_id)
    spots = legal_spots(state.boards[seat], tile)
    if not spots:
        return None
    space = spots[0][0]
    select_tray_tile(page, tile)
    assert page.locator(".seat.mine .space-box.legal").count() == len({s for s, _ in spots})
    click_and_wait(page, f"#my-space-{space}", game_id)
    return space


def wrong_colour_space(state, seat, tile):
    board = state.boards[seat]
    return next(
        space
        for space, colour in enumerate(board.colours)
        if colour != rules.TILES[tile].colour and board.cells[space] is None
    )


def serious_violations(page):
    """Run axe-core on the page: its serious and critical violations, and the whole results."""
    results = Axe().run(page)
    serious = [
        violation
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]
    return serious, results


def shows_my_board_as_a_reload_would(page, game_id):
    """The player's own board, drawn piece by piece by answers made after picking tiles up
    (live.js puts back what a selection replaced before such a move), is what a reload draws."""
    drawn = page.request.get(f"/games/{game_id}/fragment/", headers={"HX-Request": "true"}).text()
    mine = re.search(r'<section class="seat card mine"\s+id="(seat-\d)"', drawn).group(1)
    reloaded = dict(re.findall(rf'id="({mine}-[a-z0-9-]+)" data-look="([0-9a-f]+)"', drawn))
    shown = page.evaluate(
        """mine => Object.fromEntries(Array.from(
            document.querySelectorAll(`#${mine} [data-look]`),
            piece => [piece.id, piece.dataset.look]))""",
        mine,
    )
    assert shown == reloaded
