"""The page tells its socket what it shows (a ``looks`` message, games/static/games/live.js) after
each answer that changed the pool: quick moves in a row must not spend the socket's allowance
(a burst of 20 messages, then 2 a second: games/live/consumers.py), or the server closes it for
flooding (4408) and the page stops getting the other players' moves. The load benchmark's
quick players found it."""

import json
from datetime import timedelta

import pytest

from games.play import actions

from .helpers import TIMEOUT

pytestmark = pytest.mark.servers

# Every message the page sends on a socket, and how its sockets closed.
RECORD = """
window.__sent = [];
window.__closes = [];
const originalSend = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  window.__sent.push([Date.now(), String(data)]);
  return originalSend.call(this, data);
};
document.addEventListener("htmx:wsClose", (event) => {
  window.__closes.push(event.detail.event.code);
});
document.addEventListener("htmx:wsBeforeMessage", (event) => {
  if (String(event.detail.message).includes('"synced"')) window.__synced = true;
});
"""

# What htmx fires after a move's answer that brought only the parts it changed, the pool
# among them (the event live.js listens to).
POOL_CHANGED = """(count) => {
  const xhr = {
    getResponseHeader: (name) => (name === "X-Game-Parts" ? "changed" : null),
    responseText: '<div id="pool" hx-swap-oob="true"></div>',
  };
  for (let i = 0; i < count; i++) {
    document.dispatchEvent(new CustomEvent("htmx:afterRequest", {detail: {xhr}}));
  }
}"""


def looks_sent(page) -> list[dict]:
    sent = page.evaluate("() => window.__sent.map(([, data]) => data)")
    return [message for message in map(json.loads, sent) if message.get("type") == "looks"]


def test_quick_moves_in_a_row_tell_the_socket_their_looks_once_a_second(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    page = open_page(ada)
    page.add_init_script(RECORD)
    page.goto(f"/games/{game.pk}/")
    page.wait_for_function("() => window.__synced", timeout=TIMEOUT)
    before = len(looks_sent(page))

    page.evaluate(POOL_CHANGED, 30)  # thirty answers that changed the pool, at once
    page.wait_for_timeout(300)
    assert len(looks_sent(page)) - before <= 1  # at once, or put off: never one each

    page.wait_for_function(
        f"() => window.__sent.filter(([, d]) => d.includes('\"looks\"')).length >= {before + 1}",
        timeout=TIMEOUT,
    )
    page.wait_for_timeout(1500)  # a second report, if one were due, would have gone by now
    told = looks_sent(page)[before:]
    assert 1 <= len(told) <= 2, told
    version = int(page.locator("#game").get_attribute("data-version"))
    assert told[-1]["version"] == version and told[-1]["looks"]  # what the page shows now
    # The socket is still open: the server did not close it for flooding.
    assert page.evaluate("() => window.__closes") == []
    page.evaluate(POOL_CHANGED, 30)
    page.wait_for_timeout(2500)
    assert len(looks_sent(page)) - before - len(told) <= 2
    assert page.evaluate("() => window.__closes") == []
