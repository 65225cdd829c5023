"""While the site is open (games/static/games/attention.js): the tab's title and favicon say when
it is the player's move, live, on any page; a hidden tab shows a browser notification."""

import pytest

from games.rules.greedy import choose_draft

from .helpers import TIMEOUT, click_and_wait, game_state, shows_version

pytestmark = pytest.mark.servers

# Records every `new Notification(...)` of the page (the real one is still made).
RECORD_NOTIFICATIONS = """
(() => {
  const Real = window.Notification;
  if (!Real) return;
  window.__notifications = [];
  function Recorded(title, options) {
    const {body, tag} = options || {};
    window.__notifications.push({title, body, tag});
    return new Real(title, options);
  }
  Object.defineProperty(Recorded, "permission", {get: () => Real.permission});
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  Recorded.prototype = Real.prototype;
  window.Notification = Recorded;
})();
"""

# The Page Visibility API as a tab in the background reports it.
HIDE = """() => {
  Object.defineProperty(document, "hidden", {configurable: true, get: () => true});
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def mover_and_waiter(start_game):
    game = start_game(2)
    seats = list(game.seats.select_related("user").order_by("number"))
    return game, seats[game.current_seat].user, seats[1 - game.current_seat].user


def draft_and_confirm(page, game_id):
    game, state = game_state(game_id)
    shows_version(page, game.version)
    tile = choose_draft(state, state.current).tile_id
    click_and_wait(page, f"#draw-{tile}", game_id)
    return click_and_wait(page, "button:has-text('Confirm draft')", game_id)


def turn_notifications_on(page, server):
    """Allow the site's notifications and turn them on in Settings, recording them."""
    page.context.grant_permissions(["notifications"], origin=server.url)
    page.context.add_init_script(RECORD_NOTIFICATIONS)
    page.goto("/settings/")
    page.locator("#notifications-toggle").click()
    page.wait_for_function(
        "() => document.getElementById('notifications-state').textContent.startsWith('On')"
    )


def favicon(page):
    return page.get_attribute("#favicon", "href")


def test_the_title_and_favicon_say_live_that_it_is_your_move(open_page, start_game):
    game, mover, waiter = mover_and_waiter(start_game)
    m, w = open_page(mover), open_page(waiter)

    w.goto("/dashboard/")
    w.wait_for_function("() => window.htmx && document.getElementById('turn-badge')")
    assert w.title() == "Dashboard · Microchip Online"
    assert "favicon-turn" not in favicon(w)

    m.goto(f"/games/{game.pk}/")
    m.wait_for_function("() => document.title.startsWith('(1) Your move · ')", timeout=TIMEOUT)
    assert "favicon-turn" in favicon(m)

    draft_and_confirm(m, game.pk)

    # The waiting player's dashboard follows without a reload; the mover's game page too.
    w.wait_for_function(
        "() => document.title === '(1) Your move · Dashboard · Microchip Online'",
        timeout=TIMEOUT,
    )
    assert "favicon-turn" in favicon(w)
    m.wait_for_function("() => !document.title.startsWith('(')", timeout=TIMEOUT)
    assert "favicon-turn" not in favicon(m)
    assert m.errors == [] and w.errors == []


def test_a_hidden_tab_notifies_the_player_once_they_turned_notifications_on(
    open_page, start_game, server
):
    game, mover, waiter = mover_and_waiter(start_game)
    m, w = open_page(mover), open_page(waiter)
    w.context.grant_permissions(["notifications"], origin=server.url)
    w.context.add_init_script(RECORD_NOTIFICATIONS)

    w.goto("/settings/")
    toggle = w.locator("#notifications-toggle")
    assert toggle.inner_text() == "Turn on notifications in this browser"
    toggle.click()
    w.wait_for_function(
        "() => document.getElementById('notifications-state').textContent.startsWith('On')"
    )

    w.goto("/dashboard/")
    w.wait_for_function("() => window.htmx && document.getElementById('turn-badge')")
    w.evaluate(HIDE)
    m.goto(f"/games/{game.pk}/")
    draft_and_confirm(m, game.pk)

    w.wait_for_function("() => window.__notifications.length > 0", timeout=TIMEOUT)
    w.wait_for_timeout(1500)  # a second (generic) one would come within this
    notifications = w.evaluate("() => window.__notifications")
    assert notifications == [
        {
            "title": "Your move",
            "body": f"It is your turn in {game.title}.",
            "tag": f"game:/games/{game.pk}/",
        }
    ]
    assert w.errors == [] and m.errors == []


def test_a_visible_tab_or_a_player_who_did_not_opt_in_gets_no_notification(
    open_page, start_game, server
):
    game, mover, waiter = mover_and_waiter(start_game)
    m, w = open_page(mover), open_page(waiter)
    w.context.grant_permissions(["notifications"], origin=server.url)  # but never turned on
    w.context.add_init_script(RECORD_NOTIFICATIONS)

    w.goto("/dashboard/")
    w.wait_for_function("() => window.htmx && document.getElementById('turn-badge')")
    w.evaluate(HIDE)
    m.goto(f"/games/{game.pk}/")
    draft_and_confirm(m, game.pk)

    w.wait_for_function("() => document.title.startsWith('(1)')", timeout=TIMEOUT)
    w.wait_for_timeout(1500)
    assert w.evaluate("() => window.__notifications") == []


def test_a_hidden_page_of_the_game_itself_notifies_from_the_badge(open_page, start_game, server):
    """The page of the game gets no notice about it (it shows the game), only the badge: a count
    that grows while the tab is hidden shows a general notification."""
    game, mover, waiter = mover_and_waiter(start_game)
    m, w = open_page(mover), open_page(waiter)
    turn_notifications_on(w, server)

    w.goto(f"/games/{game.pk}/")
    shows_version(w, game.version)
    w.evaluate(HIDE)
    m.goto(f"/games/{game.pk}/")
    draft_and_confirm(m, game.pk)

    w.wait_for_function("() => window.__notifications.length > 0", timeout=TIMEOUT)
    w.wait_for_timeout(1000)
    assert w.evaluate("() => window.__notifications") == [
        {"title": "Your move", "body": "A game waits for your move.", "tag": "turns"}
    ]
    assert w.title().startswith("(1) Your move · ")


def test_a_hidden_page_of_the_game_itself_notifies_when_the_game_ends(
    open_page, start_game, server
):
    """The end of the game comes to its own page as the results: hidden, it notifies."""
    from tests.games.playing import play_to_the_end

    game, _, waiter = mover_and_waiter(start_game)
    w = open_page(waiter)
    turn_notifications_on(w, server)
    w.goto(f"/games/{game.pk}/")
    shows_version(w, game.version)
    w.evaluate(HIDE)

    play_to_the_end(game)  # both players, sensibly

    w.wait_for_selector("#game .results", state="attached", timeout=TIMEOUT)
    w.wait_for_function(
        "() => window.__notifications.some(n => n.title === 'Game over')", timeout=TIMEOUT
    )
    over = [n for n in w.evaluate("() => window.__notifications") if n["title"] == "Game over"]
    assert over == [
        {"title": "Game over", "body": f"{game.title} is over.", "tag": f"game:/games/{game.pk}/"}
    ]
