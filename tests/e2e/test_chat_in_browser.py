"""The table talk in the browser (games/static/games/chat.js): a message written on one page
shows on the others live, once each, as text; its writer deletes it from every page; people
watching read it unless the table keeps its talk to its players; and a redraw of the game area
keeps a message being written. What the server allows is tested in tests/social/test_chat.py
and tests/social/test_chat_live.py."""

import pytest

from games.models import ChatMessage, Seat
from games.play import chat as talk
from games.rules.greedy import choose_draft

from .helpers import TIMEOUT, click_and_wait, game_state, settled, shows_version

pytestmark = pytest.mark.servers

# Notes what the page's socket brings: the table talk's messages ("live:chat", live.js), and
# the server's first word on a new socket ("synced", after it joined the game's channels: a
# push comes from then on).
LISTEN = """
window.__pushes = 0;
window.__synced = false;
document.addEventListener("live:chat", () => { window.__pushes += 1; });
document.addEventListener("htmx:wsBeforeMessage", (event) => {
  if (String(event.detail.message).includes('"synced"')) window.__synced = true;
});
"""

# The Page Visibility API as a tab in the background reports it, and as it is shown again.
HIDE = """() => {
  Object.defineProperty(document, "hidden", {configurable: true, get: () => true});
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  Object.defineProperty(document, "hidden", {configurable: true, get: () => false});
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "visible"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def players_of(game):
    """The game's players, in seat order: drawn when the game starts, so the first is not
    always the player named ada (tests/conftest.py `start_game`)."""
    return [seat.user for seat in game.seats.select_related("user").order_by("number")]


def open_game(open_page, user, game_id):
    """The game's page, as `user`, with its socket open (a push may come from now on)."""
    page = open_page(user)
    page.add_init_script(LISTEN)
    page.goto(f"/games/{game_id}/")
    page.wait_for_selector("#chat", state="attached", timeout=TIMEOUT)
    page.wait_for_function("() => window.__synced", timeout=TIMEOUT)
    page.evaluate("() => { window.__loaded = true; }")  # gone if the page is loaded again
    return page


def messages_on(page):
    """The messages the page shows: (author, text) in order."""
    return [
        (
            item.locator(".chat-author").inner_text(),
            item.locator(".chat-text").inner_text(),
        )
        for item in page.locator("#chat-messages > li").all()
    ]


def write(page, text, *, by="enter"):
    """Type `text` in the talk's input and send it (Enter or the Send button); wait for the
    answer. Return the message as kept."""
    page.fill("#chat-text", text)
    with page.expect_response(
        lambda response: response.url.endswith("/chat/") and response.request.method == "POST",
        timeout=TIMEOUT,
    ) as answer:
        if by == "enter":
            page.press("#chat-text", "Enter")
        else:
            page.locator("#chat form").get_by_role("button", name="Send").click()
    assert answer.value.status == 200, answer.value.text()
    settled(page)
    return ChatMessage.objects.latest("pk")


def pushed(page, count):
    """Wait until the page has received `count` table-talk pushes."""
    page.wait_for_function("n => window.__pushes >= n", arg=count, timeout=TIMEOUT)


def test_players_talk_live_and_the_writer_deletes_their_message(open_page, start_game, players):
    game = start_game(2)
    first, second = players_of(game)
    watcher = players[4]  # signed in, not a player: the table is open to watching
    a = open_game(open_page, first, game.pk)
    b = open_game(open_page, second, game.pk)
    w = open_game(open_page, watcher, game.pk)
    assert a.locator("#chat h2").inner_text() == "Table talk"
    assert w.locator("#chat h2").inner_text() == "Table talk"
    assert w.locator("#chat form, #chat-text").count() == 0  # they read, not write

    # The second player's tab is in the background: what comes counts as unread in its title.
    b.evaluate(HIDE)
    message = write(a, "Good luck, have fun!")
    assert a.input_value("#chat-text") == ""
    assert a.evaluate("() => document.activeElement.id") == "chat-text"  # ready for the next
    for page in (a, b, w):
        pushed(page, 1)  # the writer's page has the push too, and places the message once
    assert messages_on(a) == [("You", "Good luck, have fun!")]
    assert messages_on(b) == [(first.username, "Good luck, have fun!")]
    assert messages_on(w) == [(first.username, "Good luck, have fun!")]
    assert a.locator(f"#chat-{message.pk} .chat-delete").is_visible()
    assert b.locator(".chat-delete").count() == 0 and w.locator(".chat-delete").count() == 0
    b.wait_for_function("() => document.title.startsWith('1 new message · ')", timeout=TIMEOUT)

    # Shown again: the title forgets it, and the server learns the second player has read it.
    with b.expect_response(lambda response: "/chat/read/" in response.url, timeout=TIMEOUT):
        b.evaluate(SHOW)
    b.wait_for_function("() => !document.title.includes('new message')", timeout=TIMEOUT)
    assert Seat.objects.get(game=game, user=second).chat_read == message.pk

    write(b, "Same to you", by="button")
    for page in (a, b, w):
        pushed(page, 2)
    assert messages_on(a) == [("You", "Good luck, have fun!"), (second.username, "Same to you")]
    assert messages_on(b) == [(first.username, "Good luck, have fun!"), ("You", "Same to you")]

    # The first player takes theirs back: it goes from every page.
    with a.expect_response(lambda response: "/delete/" in response.url, timeout=TIMEOUT) as answer:
        a.locator(f"#chat-{message.pk}").get_by_role("button", name="Delete your message").click()
    assert answer.value.status == 200
    for page, author in ((a, second.username), (b, "You"), (w, second.username)):
        page.wait_for_selector(f"#chat-{message.pk}", state="detached", timeout=TIMEOUT)
        assert messages_on(page) == [(author, "Same to you")]  # the other's, still theirs
    assert ChatMessage.objects.get(pk=message.pk).deleted_at is not None
    for page in (a, b, w):
        assert page.evaluate("() => window.__loaded") is True  # all of it without a reload
        assert page.errors == []


def test_a_message_is_shown_as_the_text_written_and_its_link_opens_apart(open_page, start_game):
    game = start_game(2)
    first, second = players_of(game)
    a = open_game(open_page, first, game.pk)
    b = open_game(open_page, second, game.pk)
    text = (
        '<script>window.__x = 2</script><img src=x onerror="window.__x=1"> '
        "the rules: https://example.com/rules?page=2"
    )

    message = write(a, text)
    pushed(b, 1)
    for page in (a, b):
        shown = page.locator(f"#chat-{message.pk} .chat-text")
        assert shown.inner_text() == text
        assert shown.locator("script, img").count() == 0
        link = shown.get_by_role("link")
        assert link.count() == 1
        assert link.get_attribute("href") == "https://example.com/rules?page=2"
        assert link.inner_text() == "https://example.com/rules?page=2"
        assert link.get_attribute("target") == "_blank"
        assert {"noopener", "noreferrer"} <= set(link.get_attribute("rel").split())
    # The same after a reload, drawn by the page rather than by chat.js.
    b.reload()
    b.wait_for_selector(f"#chat-{message.pk}", timeout=TIMEOUT)
    assert b.locator(f"#chat-{message.pk} .chat-text").inner_text() == text
    for page in (a, b):
        page.wait_for_timeout(200)  # an image's error would have fired by now
        assert page.evaluate("() => typeof window.__x") == "undefined"
        assert page.errors == []


def test_a_table_that_keeps_its_talk_shows_people_watching_none_of_it(
    open_page, start_game, players
):
    game = start_game(2, spectators_read_chat=False)
    first, second = players_of(game)
    talk.send_message(game_id=game.pk, user=second, text="before you came")
    a = open_game(open_page, first, game.pk)
    w = open_game(open_page, players[4], game.pk)

    write(a, "between us")
    pushed(a, 1)  # the push has gone out to the game's pages
    w.wait_for_timeout(500)  # time enough for it to reach this one, were it sent here
    hint = w.locator("#chat .hint")
    assert hint.inner_text() == "The players' talk at this table is theirs alone."
    assert w.locator("#chat-messages, #chat form").count() == 0
    assert w.evaluate("() => window.__pushes") == 0
    for page_text in (w.content(), w.locator("body").inner_text()):
        assert "before you came" not in page_text and "between us" not in page_text
    # Nor after a reload.
    w.reload()
    w.wait_for_selector("#chat .hint", timeout=TIMEOUT)
    assert "between us" not in w.content() and "before you came" not in w.content()
    assert a.errors == [] and w.errors == []


def test_a_message_being_written_survives_a_redraw_of_the_game_area(open_page, start_game):
    game = start_game(2)
    mover = players_of(game)[game.current_seat]
    page = open_game(open_page, mover, game.pk)
    write(page, "my move")
    page.locator("#chat-text").click()
    page.keyboard.type("half a tho")
    page.locator("#pool").evaluate("pool => pool.setAttribute('data-old', '')")

    # The page missed a push (as it believes), and resyncs: the server sends the whole game
    # area, drawn again, while the player is typing.
    version = game.version
    page.evaluate(
        "v => { document.getElementById('game').setAttribute('data-version', String(v - 1));"
        " window.dispatchEvent(new Event('online')); }",
        version,
    )
    page.wait_for_selector("#pool:not([data-old])", state="attached", timeout=TIMEOUT)
    shows_version(page, version)
    assert page.input_value("#chat-text") == "half a tho"
    assert messages_on(page) == [("You", "my move")]
    page.keyboard.type("ught")  # the typing goes on where it was
    assert page.input_value("#chat-text") == "half a thought"

    # A move made on the page keeps them too.
    _, state = game_state(game.pk)
    tile = choose_draft(state, state.current).tile_id
    click_and_wait(page, f"#draw-{tile}", game.pk)
    click_and_wait(page, "button:has-text('Confirm draft')", game.pk)
    assert page.input_value("#chat-text") == "half a thought"
    assert messages_on(page) == [("You", "my move")]

    # And the message, finished, goes as any other.
    message = write(page, page.input_value("#chat-text"))
    assert message.text == "half a thought"
    assert messages_on(page) == [("You", "my move"), ("You", "half a thought")]
    assert page.errors == []


# When the page next sends a request whose address holds `part`, it marks the talk read as
# that request goes (chat.js does, 0.4 s after a message comes): both requests are in flight.
READ_DURING = """part => {
  document.addEventListener("htmx:beforeSend", function once(event) {
    if (!String(event.detail.requestConfig.path).includes(part)) return;
    document.removeEventListener("htmx:beforeSend", once);
    const talk = document.getElementById("chat");
    setTimeout(() => htmx.ajax("POST", talk.getAttribute("data-read-url"), {
      source: talk, swap: "none", values: {up_to: talk.getAttribute("data-newest")},
    }), 0);
  });
}"""


def test_the_read_mark_never_cuts_a_move_or_a_message_short(open_page, start_game):
    # The talk's requests go in a line of their own, not in the game area's (which a newer
    # request of its own replaces): a read mark sent while a move or a deletion is on its way
    # used to abort it in the browser. The server still made the change, but the page never
    # had its answer: the move's page stayed where it was, a message read "could not be sent".
    game = start_game(2)
    _, state = game_state(game.pk)
    drafter = game.seats.get(number=state.current).user
    page = open_game(open_page, drafter, game.pk)
    message = write(page, "oops")
    reads = []
    page.on("response", lambda response: "/chat/read/" in response.url and reads.append(response))

    page.evaluate(READ_DURING, "/delete/")
    deleted = page.locator(f"#chat-{message.pk}").get_by_role("button", name="Delete your message")
    with page.expect_response(lambda answer: "/delete/" in answer.url, timeout=TIMEOUT) as answer:
        deleted.click()
    assert answer.value.status == 200
    page.wait_for_selector(f"#chat-{message.pk}", state="detached", timeout=TIMEOUT)

    page.evaluate(READ_DURING, "/act/")
    version = click_and_wait(page, f"#draw-{choose_draft(state, state.current).tile_id}", game.pk)
    shows_version(page, version)
    page.wait_for_timeout(300)  # the last read mark's answer on its way
    assert len(reads) == 2 and all(read.status == 204 for read in reads)
    assert page.locator("#chat-error").is_hidden()
    assert page.errors == []


def test_a_refused_message_says_why_and_stays_in_the_input(open_page, start_game):
    game = start_game(2)
    page = open_game(open_page, players_of(game)[0], game.pk)
    page.fill("#chat-text", "   ")  # the browser's `required` lets spaces through
    with page.expect_response(lambda response: response.url.endswith("/chat/")) as answer:
        page.press("#chat-text", "Enter")
    assert answer.value.status == 422
    settled(page)
    error = page.locator("#chat-error")
    assert error.is_visible() and error.inner_text() == "Write a message first."
    assert page.input_value("#chat-text") == "   "
    assert not ChatMessage.objects.exists()
