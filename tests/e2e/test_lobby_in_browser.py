"""Three players: an open table from the lobby, and an invitation table joined by its link."""

import re

import pytest

from games.models import Game

from .conftest import screenshot
from .helpers import TIMEOUT

pytestmark = pytest.mark.servers


def test_create_invite_by_name_and_by_link_then_the_game_starts(open_page, make_player):
    ada, brian, chloe = make_player("ada"), make_player("brian"), make_player("chloe")
    a, b, c = open_page(ada), open_page(brian), open_page(chloe)

    a.goto("/games/new/")
    a.fill("input[name=name]", "Friends only")
    a.select_option("select[name=player_count]", "3")
    a.check("input[name=access][value=invitation]")
    a.fill("input[name=invitees]", "brian")
    a.get_by_role("button", name="Create the game").click()
    a.wait_for_url(re.compile(r"/games/\d+/$"))
    link = a.locator("#invite-link").input_value()
    game = Game.objects.get(name="Friends only")
    assert link.endswith(f"/games/join/{game.invite_token}/")

    # Chloe was not invited by name: the table is hidden from her, but the link lets her in.
    assert c.goto(f"/games/{game.pk}/").status == 404
    c.goto(link)
    c.get_by_role("button", name="Take a seat").click()
    c.wait_for_url(f"**/games/{game.pk}/")
    assert c.locator("#main").get_by_role("link", name="chloe").is_visible()

    # Brian finds his invitation on his dashboard.
    b.goto("/dashboard/")
    b.get_by_role("link", name="Friends only").first.click()
    b.get_by_role("button", name="Take a seat").click()
    b.wait_for_selector("#game", timeout=TIMEOUT)
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert b.locator("section.seat").count() == 3


def test_the_lobby_lists_open_tables_with_filters_and_a_player_joins(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    a, b = open_page(ada), open_page(brian)
    for name, players in (("Quick pair", "2"), ("Big table", "5")):
        a.goto("/games/new/")
        a.fill("input[name=name]", name)
        a.select_option("select[name=player_count]", players)
        a.get_by_role("button", name="Create the game").click()
        a.wait_for_url(re.compile(r"/games/\d+/$"))

    b.goto("/games/")
    assert b.get_by_role("link", name="Quick pair").is_visible()
    assert b.get_by_role("link", name="Big table").is_visible()
    screenshot(b, "lobby")
    b.select_option("select[name=player_count]", "5")
    b.get_by_role("button", name="Filter").click()
    assert b.get_by_role("link", name="Quick pair").count() == 0
    b.get_by_role("button", name="Join").click()
    b.wait_for_url(re.compile(r"/games/\d+/$"))
    assert Game.objects.get(name="Big table").seats.filter(user=brian).exists()
    assert b.errors == []
