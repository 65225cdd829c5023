"""The site in the reader's language, in the browser (issue 24): a Spanish player plays a turn
in Spanish while their French opponent's page follows it live in French; a visitor switches the
language from the footer; axe-core finds no serious violation on a page in each language."""

import re
from datetime import timedelta

import pytest
from django.utils import translation

from games.play import actions
from games.rules.greedy import choose_draft

from .helpers import (
    TIMEOUT,
    click_and_wait,
    game_state,
    place_where_it_fits,
    serious_violations,
    shows_version,
)

pytestmark = pytest.mark.servers

YOUR_TURN_TO_DRAFT = (
    '<strong class="your-turn">Your turn:</strong> take a tile from the draw column.'
)


def words_of(language: str, message: str) -> str:
    """The message as the catalogue says it in `language`, without its tags."""
    with translation.override(language):
        said = translation.gettext(message)
    return re.sub(r"<[^>]+>", "", said)


def test_a_spanish_player_plays_a_turn_in_spanish_and_a_french_one_sees_it_in_french(
    open_page, make_player
):
    rosa, jean = make_player("rosa"), make_player("jean")
    rosa.language, jean.language = "es", "fr"
    rosa.save(update_fields=["language"])
    jean.save(update_fields=["language"])
    game = actions.create_game(creator=rosa, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=jean)
    game, state = game_state(game.pk)
    seats = {seat.user_id: seat.number for seat in game.seats.all()}
    pages = {rosa.pk: open_page(rosa), jean.pk: open_page(jean)}
    for page in pages.values():
        page.goto(f"/games/{game.pk}/")
    first = next(user for user, number in seats.items() if number == state.current)
    if first != rosa.pk:  # Jean drafts first, in French; then it is Rosa's turn
        page = pages[jean.pk]
        assert page.locator("html").get_attribute("lang") == "fr"
        tile = choose_draft(state, state.current).tile_id
        click_and_wait(page, f"#draw-{tile}", game.pk)
        click_and_wait(page, "#confirm-draft", game.pk)
        game, state = game_state(game.pk)
    spanish, french = pages[rosa.pk], pages[jean.pk]
    shows_version(spanish, game.version)
    assert spanish.locator("html").get_attribute("lang") == "es"
    status = spanish.locator(".status")
    assert words_of("es", YOUR_TURN_TO_DRAFT) in status.inner_text()
    tile = choose_draft(state, seats[rosa.pk]).tile_id
    click_and_wait(spanish, f"#draw-{tile}", game.pk)
    confirm = spanish.locator("#confirm-draft")
    assert confirm.inner_text() == words_of("es", "Confirm draft") != "Confirm draft"
    place_where_it_fits(spanish, game.pk, seats[rosa.pk], tile)
    version = click_and_wait(spanish, "#confirm-draft", game.pk)
    # Jean's page follows live, drawn for Jean in French by the page's socket.
    shows_version(french, version)
    french_turn = words_of("fr", YOUR_TURN_TO_DRAFT)
    assert french_turn != words_of("en-gb", YOUR_TURN_TO_DRAFT)
    french.locator(".status").get_by_text(french_turn[:20]).wait_for(timeout=TIMEOUT)
    assert spanish.errors == [] and french.errors == []


def test_a_visitor_changes_the_language_from_the_footer(open_page):
    page = open_page()
    page.goto("/leaderboard/")
    assert page.locator("html").get_attribute("lang") == "en-gb"
    page.select_option("#language-choice", "de")
    page.locator(".language-form button").click()
    page.wait_for_function("document.documentElement.lang === 'de'", timeout=TIMEOUT)
    assert page.url.endswith("/leaderboard/")  # back to the same page
    assert words_of("de", "Leaderboard") in page.locator("nav").inner_text()


@pytest.mark.parametrize("language", ["en-gb", "es", "fr", "de"])
def test_a_game_page_in_each_language_has_no_serious_accessibility_violation(
    open_page, make_player, language
):
    ada, brian = make_player("ada"), make_player("brian")
    ada.language = language
    ada.save(update_fields=["language"])
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    page = open_page(ada)
    page.goto(f"/games/{game.pk}/")
    page.wait_for_selector("#game", timeout=TIMEOUT)
    assert page.locator("html").get_attribute("lang") == language
    serious, _ = serious_violations(page)
    assert serious == [], [violation["id"] for violation in serious]
