"""The page's heartbeat in the browser (games/static/games/live.js), under Playwright's clock: a
player's page pings every 25 s, which keeps their presence (the dot on their board); a page
watching the game keeps no presence, and its ping only mends a push its socket could not draw,
so it pings every third time (issue 36: each frame a socket receives costs the server). What the
server does with a ping is tested in tests/live."""

import json

import pytest

from .helpers import TIMEOUT

pytestmark = pytest.mark.servers

SYNCED = """
window.__synced = false;
document.addEventListener("htmx:wsBeforeMessage", (event) => {
  if (String(event.detail.message).includes('"synced"')) window.__synced = true;
});
"""


def pings_of(page) -> list[dict]:
    """The pings the page's socket will send, as they go."""
    sent = []

    def on_frame(payload):
        message = json.loads(payload) if isinstance(payload, str) else {}
        if message.get("type") == "ping":
            sent.append(message)

    page.on("websocket", lambda socket: socket.on("framesent", on_frame))
    return sent


def test_a_watchers_page_pings_every_third_time_a_players_does(open_page, start_game, players):
    game = start_game(2)
    player = game.seats.get(number=0).user
    watcher = players[4]  # signed in, no seat: the table is open to watching
    pages, pings = {}, {}
    for who, user in (("player", player), ("watcher", watcher)):
        page = pages[who] = open_page(user)
        page.clock.install()
        page.add_init_script(SYNCED)
        pings[who] = pings_of(page)
        page.goto(f"/games/{game.pk}/")
        page.wait_for_function("() => window.__synced", timeout=TIMEOUT)
    assert pages["player"].locator("#game.with-mine").count() == 1
    assert pages["watcher"].locator("#game.with-mine").count() == 0

    for page in pages.values():
        page.clock.run_for(150_000 + 1_000)  # six of a player's heartbeats
    pages["player"].wait_for_timeout(500)  # the last frames on their way out
    assert len(pings["player"]) == 6
    assert len(pings["watcher"]) == 2
    for ping in (*pings["player"], *pings["watcher"]):
        assert ping == {"type": "ping", "version": game.version, "visible": True}
