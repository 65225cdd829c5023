"""The clocks in the browser: the vacation switch on the dashboard, seen live by the other
player's game page; a clock ticking on the game page between pushes
(games/static/games/clocks.js)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game

from .helpers import TIMEOUT, serious_violations, shows_version

pytestmark = pytest.mark.servers


def players_of(game):
    seats = list(game.seats.select_related("user").order_by("number"))
    return seats[game.current_seat].user, seats[1 - game.current_seat].user


def test_the_vacation_switch_stops_the_clocks_and_the_others_see_it_live(open_page, start_game):
    game = start_game(2)
    away, other = players_of(game)  # it is the first one's move
    mine, theirs = open_page(away), open_page(other)
    theirs.goto(f"/games/{game.pk}/")
    shows_version(theirs, game.version)
    marker = theirs.locator(f"#seat-{game.current_seat} .vacation-marker")
    assert marker.count() == 0

    mine.goto("/dashboard/")
    assert "You have 30 days of vacation." in mine.locator("#vacation-state").inner_text()
    mine.fill("#vacation-days", "3")
    mine.locator("#start-vacation").click()
    mine.wait_for_selector("#end-vacation", timeout=TIMEOUT)
    assert "You are on vacation until" in mine.locator("#vacation-state").inner_text()
    serious, results = serious_violations(mine)
    assert not serious, results.generate_report()

    # The other player's page shows it without a reload: by the name, in the reader's own
    # time, and in the status line, with the drafter's clock stopped.
    shows_version(theirs, game.version + 1)
    marker.wait_for(timeout=TIMEOUT)
    text = marker.inner_text()
    assert text.startswith("on vacation until ") and "UTC" not in text  # put in local time
    assert "is on vacation until" in theirs.locator("#game-status").inner_text()
    stopped = theirs.locator("#game-status .seat-clock")
    assert "stopped" in stopped.get_attribute("class")

    mine.locator("#end-vacation").click()
    mine.wait_for_selector("#start-vacation", timeout=TIMEOUT)
    shows_version(theirs, game.version + 2)
    marker.wait_for(state="detached", timeout=TIMEOUT)
    assert "stopped" not in theirs.locator("#game-status .seat-clock").get_attribute("class")
    assert mine.errors == [] and theirs.errors == []


def test_a_players_clock_ticks_on_the_game_page(open_page, start_game):
    game = start_game(2, time_per_move=timedelta(hours=1))
    # The turn began 59 minutes ago: under a minute is left, counted in seconds.
    now = timezone.now()
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=now - timedelta(minutes=59), deadline=now + timedelta(seconds=60)
    )
    _, waiting = players_of(game)
    page = open_page(waiting)
    page.goto(f"/games/{game.pk}/")
    left = page.locator(f"#seat-{game.current_seat} .seat-clock .clock-left")

    def seconds_left():
        words = left.inner_text()
        assert words.endswith("seconds"), words
        return int(words.split()[0])

    first = seconds_left()
    page.wait_for_timeout(2500)
    later = seconds_left()

    assert 50 <= first <= 60
    assert first - 4 <= later <= first - 1  # it ticked, about as fast as the time passed
    # The status line's clock is the same one (both read at one moment: they tick together).
    both = page.evaluate(
        """seat => [`#game-status .clock-left`, `#seat-${seat} .seat-clock .clock-left`]
            .map(selector => document.querySelector(selector).textContent)""",
        game.current_seat,
    )
    assert both[0] == both[1]
    assert page.errors == []


def test_the_new_game_form_shows_the_chosen_clocks_times_only(open_page, make_player):
    page = open_page(make_player("ada"))
    page.goto("/games/new/")
    per_move, bank = page.locator("#id_time_per_move"), page.locator("#id_fischer_bank")
    assert per_move.is_visible() and not bank.is_visible()

    page.locator("#id_clock_1").check()  # Fischer
    assert bank.is_visible() and not per_move.is_visible()
    page.select_option("#id_fischer_bank", "2d")
    page.select_option("#id_fischer_increment", "12h")
    page.select_option("#id_fischer_cap", "5d")
    page.locator("#id_weekends_off").check()
    serious, results = serious_violations(page)
    assert not serious, results.generate_report()
    page.locator("button:has-text('Create the game')").click()

    page.wait_for_selector(".waiting-room", timeout=TIMEOUT)
    words = "Fischer clock: 2 days to start, +12 hours a draft, at most 5 days; weekends off"
    assert words in page.locator(".waiting-room").inner_text()
    assert page.errors == []
