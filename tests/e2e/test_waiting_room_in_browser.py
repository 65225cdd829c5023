"""The creator's open waiting room follows the table live and becomes the game page in place."""

import re

import pytest

from games.models import Game
from games.rules.greedy import choose_draft

from .helpers import TIMEOUT, click_and_wait, game_state, shows_version

pytestmark = pytest.mark.servers

# Counts the page's websocket openings (htmx's ws extension fires htmx:wsOpen on each).
COUNT_SOCKETS = """
document.addEventListener("htmx:wsOpen", function () { window.socketsOpened = (window.socketsOpened || 0) + 1; });
"""  # noqa: E501


def test_the_waiting_room_shows_the_seat_taken_then_becomes_the_game_without_a_reload(
    open_page, make_player
):
    ada, brian = make_player("ada"), make_player("brian")
    a, b = open_page(ada), open_page(brian)
    a.add_init_script(COUNT_SOCKETS)

    a.goto("/games/new/")
    a.fill("input[name=name]", "Live table")
    a.select_option("select[name=player_count]", "2")
    a.get_by_role("button", name="Create the game").click()
    a.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get(name="Live table")
    assert a.locator("#seats .free").count() == 1
    a.wait_for_function("() => window.socketsOpened === 1", timeout=TIMEOUT)
    a.evaluate("() => { window.sameDocument = true; }")  # gone if the page reloads
    # Hold the creator's load of the game page, to see the waiting room's last push first.
    held = []
    a.route(f"**/games/{game.pk}/", lambda route: held.append(route))

    b.goto(a.locator("#invite-link").input_value())  # the second player follows the link
    b.get_by_role("button", name="Take a seat").click()
    b.wait_for_selector("#game", timeout=TIMEOUT)

    # The creator's page: the seat taken, the start announced; Start now and the forms are gone.
    a.wait_for_selector("#seats .started", timeout=TIMEOUT)
    assert a.locator("#seats .seat-list").get_by_role("link", name="brian").is_visible()
    assert a.locator("#seats .free").count() == 0
    assert a.get_by_role("button", name="Start now").count() == 0
    assert a.locator("#invite-link").count() == 0
    for _ in range(50):
        if held:
            break
        a.wait_for_timeout(100)
    assert len(held) == 1, "the waiting room did not load the game page"
    held[0].continue_()
    a.unroute(f"**/games/{game.pk}/")

    # ... and then the game page, in place: same document, same socket, the game's address.
    a.wait_for_selector("#game", timeout=TIMEOUT)
    assert a.evaluate("() => window.sameDocument") is True
    assert a.evaluate("() => window.socketsOpened") == 1
    assert a.url.endswith(f"/games/{game.pk}/")
    # "The game has started" is said over the page for a moment, and goes by itself.
    started = a.locator(".toast").get_by_text("The game has started.")
    started.wait_for(timeout=TIMEOUT)
    assert a.locator(".toast").get_attribute("role") == "status"
    assert a.locator("#seats").count() == 0
    assert a.locator("section.seat").count() == 2
    started.wait_for(state="detached", timeout=TIMEOUT)

    # The socket carries the game now: each player's draft reaches the other page live.
    pages = {ada.pk: a, brian.pk: b}
    for _ in range(2):
        game, state = game_state(game.pk)
        users = [seat.user_id for seat in game.seats.order_by("number")]
        mover, other = pages[users[state.current]], pages[users[1 - state.current]]
        shows_version(mover, game.version)
        tile = choose_draft(state, state.current).tile_id
        click_and_wait(mover, f"#draw-{tile}", game.pk)
        version = click_and_wait(mover, "button:has-text('Confirm draft')", game.pk)
        shows_version(other, version)
    assert a.evaluate("() => window.sameDocument") is True
    assert a.errors == [] and b.errors == []
