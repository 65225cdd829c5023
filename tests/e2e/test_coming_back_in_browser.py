"""A player leaves a game, two turns pass without them (a forced take and a timeout), they come
back: the page says what happened, highlights it, logs it, and keeps the server's doings as
notices until dismissed."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import rules
from games.drawing.log_page import LOG_TURNS_PER_PAGE
from games.models import Game
from games.play import actions

from .conftest import screenshot
from .helpers import TIMEOUT, game_state, settled, shows_version

pytestmark = pytest.mark.servers


def wait_until(predicate, timeout=TIMEOUT / 1000):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("the game never got there")


def draft_top(game_id, user):
    _, state = game_state(game_id)
    for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
        actions.play(game_id=game_id, user=user, action=action, seen_version=None)


def forced_take_due_for(state, seat):
    """Whether the current player's drafting the top tile leaves `seat` a forced take."""
    after = state.apply(rules.Draft(state.draw_tiles()[0]), state.current)
    after = after.apply(rules.ConfirmDraft(), state.current)
    return after.current == seat and after.forced_action() is not None


def test_coming_back_after_a_forced_take_and_a_timeout(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(hours=1))
    actions.join_game(game_id=game.pk, user=brian)
    game_id = game.pk
    game, state = game_state(game_id)
    users = [seat.user for seat in game.seats.order_by("number")]
    mine = next(seat.number for seat in game.seats.all() if seat.user_id == ada.pk)
    other = users[1 - mine]

    # Play on until brian's next draft leaves ada the last tile of the draw column.
    while not (state.current != mine and forced_take_due_for(state, mine)):
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        else:
            draft_top(game.pk, users[state.current])
        game, state = game_state(game.pk)

    page = open_page(ada)
    page.goto(f"/games/{game.pk}/")
    shows_version(page, game.version)
    page.goto("/dashboard/")  # ada leaves the game

    draft_top(game.pk, other)  # the worker takes the last tile for ada
    wait_until(lambda: game_state(game_id)[0].events.filter(kind="take_last").exists()
               and game_state(game.pk)[1].forced_action() is None)  # fmt: skip
    game, state = game_state(game.pk)
    while state.current != mine:
        draft_top(game.pk, other)
        wait_until(lambda: game_state(game_id)[1].forced_action() is None)
        game, state = game_state(game.pk)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    actions.time_out_turn(game_id=game.pk, expected_version=game.version)
    wait_until(lambda: game_state(game_id)[1].forced_action() is None)
    game, _ = game_state(game.pk)

    page.goto(f"/games/{game.pk}/")
    shows_version(page, game.version)

    screenshot(page, "coming-back")
    summary = page.locator("#since-visit").inner_text()
    assert "the server took the last tile of column" in summary and "for you" in summary
    assert "your time ran out" in summary.lower()
    assert f"{other.username} took a" in summary
    highlighted = page.locator("#game .news")
    assert highlighted.count() >= 2  # the tiles taken for ada and by brian, and their columns
    log = page.locator("#move-log").inner_text()
    assert "The server took the last tile of column" in log and "for you" in log
    assert "Your time ran out" in log
    # The timeout is a notice to dismiss; the forced take is routine: the log and the summary.
    notices = page.locator("#my-notices")
    assert "The server took the last tile" not in notices.inner_text()
    assert "Your time ran out" in notices.inner_text()
    assert page.locator(".seat .timeouts").first.inner_text() == "1 timeout"

    notices.get_by_role("button", name="Dismiss").click()
    page.wait_for_function("() => !document.querySelector('#my-notices li')", timeout=TIMEOUT)
    settled(page)
    # Highlights stay across redraws until ada moves: a push redraws the boards, they come back.
    page.reload()
    assert page.locator("#since-visit").get_by_text("Since your last visit").count() == 0  # once
    assert page.locator("#game .news").count() >= 2
    assert "Your time ran out" not in page.locator("#my-notices").inner_text()

    game, state = game_state(game_id)
    while state.current != mine or state.forced_action() is not None:
        if state.forced_action() is None:
            draft_top(game_id, other)
        wait_until(lambda: game_state(game_id)[1].forced_action() is None)
        game, state = game_state(game_id)
    shows_version(page, game.version)  # brian's moves came in live: the highlights stayed
    assert page.locator("#game .news").count() >= 1
    with page.expect_response(lambda r: "/act/" in r.url, timeout=TIMEOUT):
        page.locator(f"#draw-{state.draw_tiles()[0]}").click()
    settled(page)
    assert page.locator("#game .news").count() == 0  # their move puts the highlights away
    assert not page.errors


def test_an_older_page_of_the_log_stays_while_moves_come_in(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(hours=1))
    actions.join_game(game_id=game.pk, user=brian)
    game_id = game.pk
    game, state = game_state(game_id)
    users = [seat.user for seat in game.seats.order_by("number")]
    while state.drafts < LOG_TURNS_PER_PAGE + 1:  # two pages of turns
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game_id)
        else:
            draft_top(game_id, users[state.current])
        game, state = game_state(game_id)
    wait_until(lambda: game_state(game_id)[1].forced_action() is None)
    game, state = game_state(game_id)

    page = open_page(ada)
    page.goto(f"/games/{game_id}/")
    shows_version(page, game.version)
    page.locator("#move-log").get_by_role("button", name="Older").click()
    page.wait_for_selector('#move-log[data-page="2"]', timeout=TIMEOUT)

    draft_top(game_id, users[state.current])  # a move comes in live
    wait_until(lambda: game_state(game_id)[1].forced_action() is None)
    game, _ = game_state(game_id)
    shows_version(page, game.version)
    assert page.locator("#move-log").get_attribute("data-page") == "2"  # still what they read

    page.locator("#move-log").get_by_role("button", name="Newer").click()
    page.wait_for_selector('#move-log[data-page="1"]', timeout=TIMEOUT)
    draft_top(game_id, users[game_state(game_id)[1].current])
    wait_until(lambda: game_state(game_id)[1].forced_action() is None)
    game, _ = game_state(game_id)
    shows_version(page, game.version)
    newest = page.locator("#move-log .log-turn h3").first.inner_text()
    assert newest.lower() == f"turn {game_state(game_id)[1].drafts}"  # the newest page follows
    # The moves came as their turns alone, added at the top: the log reads as a reload draws it.
    live_log = page.locator("#move-log").inner_text()
    page.reload()
    shows_version(page, game.version)
    assert page.locator("#move-log").inner_text() == live_log
    assert not page.errors
