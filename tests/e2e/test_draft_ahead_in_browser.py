"""Drafting ahead in the browser: while the other player drafts, a player queues two tiles of
the column their next turn draws from (one by the keyboard), orders them and asks for the draft
to be confirmed for them; their phone shows the same queue at once. When the other player takes
the first choice and their turn begins, the server drafts the second: the page shows it taken.
Nobody else's page ever shows the queue."""

from datetime import timedelta

import pytest

from games import rules
from games.models import Event
from games.move_log import tile_words
from games.play import actions

from .helpers import TIMEOUT, game_state, serious_violations, settled, shows_version

pytestmark = pytest.mark.servers

PHONE = {"width": 390, "height": 844}


def queue_click(page, selector, *, key=None):
    """Press a button of the Drafting-ahead panel (or the key on it); wait for its answer."""
    with page.expect_response(lambda r: "/queue/" in r.url, timeout=TIMEOUT) as answer:
        if key:
            page.locator(selector).focus()
            page.keyboard.press(key)
        else:
            page.locator(selector).click()
    assert answer.value.status == 200, answer.value.text()[-1500:]
    settled(page)


def queued(page) -> list[str]:
    return page.locator("#draft-ahead .ahead-item").evaluate_all(
        "items => items.map(item => item.getAttribute('data-tile'))"
    )


def test_queuing_two_tiles_and_seeing_the_first_still_there_taken(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game, state = game_state(game.pk)
    drafter, waiting = (game.seats.get(number=n).user for n in (0, 1))
    first, second = state.draw_tiles()[3], state.draw_tiles()[1]

    page = open_page(waiting)
    page.goto(f"/games/{game.pk}/")
    shows_version(page, game.version)
    phone = open_page(waiting, viewport=PHONE, touch=True)
    phone.goto(f"/games/{game.pk}/")
    shows_version(phone, game.version)
    bar_before = phone.locator("#game-status .action-bar").bounding_box()["height"]
    other = open_page(drafter)
    other.goto(f"/games/{game.pk}/")
    shows_version(other, game.version)

    # The other player drafts (not yet confirmed): the pool changes under the waiting page.
    draft = rules.Draft(state.draw_tiles()[0])
    actions.play(game_id=game.pk, user=drafter, action=draft, seen_version=None)
    shows_version(page, game.version + 1)
    assert page.locator(".pool .column.next-draw").get_attribute("data-column") == "9"

    queue_click(page, f"#ahead-add-{second}")
    queue_click(page, f"#ahead-add-{first}", key="Enter")  # by the keyboard
    assert queued(page) == [str(second), str(first)]
    # The focus stays with the tile just queued; a screen reader hears the queue.
    page.wait_for_function(f"() => document.activeElement.id === 'ahead-up-{first}'")
    page.wait_for_function(
        "words => document.getElementById('game-announcer').textContent.includes(words)",
        arg=f"Your queue: 1. {tile_words(second)}, 2. {tile_words(first)}",
    )
    queue_click(page, f"#ahead-up-{first}")
    assert queued(page) == [str(first), str(second)]
    queue_click(page, "#ahead-confirm")
    assert page.locator("#ahead-confirm").is_checked()
    panel = page.locator("#draft-ahead")
    assert f"1. {tile_words(first)}" in panel.inner_text()
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()

    # The phone of the same player was told at once; the docked bar stayed as it was.
    phone.wait_for_function(
        "n => document.querySelectorAll('#draft-ahead .ahead-item').length === n", arg=2
    )
    assert queued(phone) == [str(first), str(second)]
    assert phone.locator("#ahead-confirm").is_checked()
    assert phone.locator("#game-status .action-bar").bounding_box()["height"] == bar_before
    # Every button of the panel is a target a finger can hit; the switch's is its whole label.
    small = phone.evaluate(
        """() => [...document.querySelectorAll('#draft-ahead button, #draft-ahead label')]
          .map(e => [e.id || e.className, e.getBoundingClientRect()])
          .filter(([, r]) => r.width < 43.5 || r.height < 43.5).map(([name]) => name)"""
    )
    assert small == []
    # Nobody else sees it.
    assert other.locator("#draft-ahead .ahead-item").count() == 0

    # The other player undoes, takes the first choice instead and confirms: the waiting
    # player's turn begins, and the server drafts their second choice for them.
    for action in (rules.UndoDraft(), rules.Draft(first), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=drafter, action=action, seen_version=None)
    game, state = game_state(game.pk)
    assert [e.kind for e in game.events.filter(cause=Event.Cause.QUEUED)] == [
        "draft",
        "confirm_draft",
    ]
    shows_version(page, game.version)
    page.wait_for_selector(f"#my-tray-{second}", timeout=TIMEOUT)
    words = f"Your queued draft took a {tile_words(second)} from column 10"
    page.wait_for_selector(f"#move-log :text('{words}')", timeout=TIMEOUT)
    assert "queued" not in page.locator("#my-notices").inner_text()  # news, not a warning
    assert page.locator("#draft-ahead .ahead-item").count() == 0  # used up
    assert page.locator("#ahead-confirm").is_checked()  # "confirm it for me" stays
    assert "your-turn" not in (page.locator("#game-status").inner_html())  # played: waiting again
    shows_version(other, game.version)
    log = other.locator("#move-log").inner_text()
    assert f"{waiting.username} took a {tile_words(second)} from column 10" in log
    assert "queued" not in log
    for name, each in (("page", page), ("phone", phone), ("other", other)):
        assert each.errors == [], name
