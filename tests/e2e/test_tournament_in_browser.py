"""A Swiss tournament in the browser: a player registers, the organiser starts it, the round's
game is on the player's dashboard, they play their first draft by clicking, the standings on an
open page update live as games end, the next round starts on it; a phone shows the standings
without scrolling sideways."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games import rules
from games.models import Game
from games.play import actions as game_actions
from games.rules.greedy import choose_draft
from games.tournaments import actions
from games.tournaments.models import Tournament
from tests.games.playing import play_to_the_end

from .conftest import screenshot
from .helpers import TIMEOUT, click_and_wait, game_state

pytestmark = pytest.mark.servers

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def test_a_swiss_from_registration_to_its_second_round(
    open_page, make_player, django_capture_on_commit_callbacks
):
    def committed(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    ada, brian, chloe, dmitri = (make_player(name) for name in ("ada", "brian", "chloe", "dmitri"))
    tournament = actions.create_tournament(
        organiser=ada,
        name="Winter Swiss",
        description="Three rounds for the winter evenings: tables of two, a day a move.",
        table_size=2,
        rounds=3,
        min_players=4,
        starts_at=timezone.now() + timedelta(days=1),
        rated=False,
    )
    for player in (ada, chloe, dmitri):
        committed(actions.register, tournament_id=tournament.pk, user=player)

    # brian finds it in the list and registers.
    b = open_page(brian, viewport=DESKTOP)
    b.goto("/tournaments/")
    b.get_by_role("link", name="Winter Swiss").click()
    b.get_by_role("button", name="Register").click()
    b.get_by_text("You are registered.", exact=True).wait_for()
    assert b.get_by_role("heading", name="4 players registered").is_visible()

    # ada, its organiser, starts it.
    a = open_page(ada, viewport=DESKTOP)
    a.goto(f"/tournaments/{tournament.pk}/")
    a.get_by_role("button", name="Start now").click()
    a.get_by_role("heading", name="Standings").wait_for()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.round == 1
    first_round = list(Game.objects.filter(tournament_round__tournament=tournament))
    assert len(first_round) == 2

    # The round's game is on brian's dashboard; he opens it and drafts by clicking.
    mine = next(game for game in first_round if game.seats.filter(user=brian).exists())
    b.goto("/dashboard/")
    b.get_by_role("link", name=re.compile(r"Winter Swiss · 1\.\d")).first.click()
    b.wait_for_selector("#game", timeout=TIMEOUT)
    game, state = game_state(mine.pk)
    by_seat = [seat.user for seat in game.seats.order_by("number")]
    if by_seat[state.current] != brian:  # his opponent plays first
        for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
            committed(
                game_actions.play, game_id=game.pk, user=by_seat[state.current], action=action,
                seen_version=None,
            )  # fmt: skip
        game, state = game_state(mine.pk)
        b.wait_for_function(
            "v => Number(document.getElementById('game').dataset.version) >= v",
            arg=game.version,
            timeout=TIMEOUT,
        )
    tile = choose_draft(state, state.current).tile_id
    click_and_wait(b, f"#draw-{tile}", mine.pk)
    click_and_wait(b, "button:has-text('Confirm draft')", mine.pk)
    assert game_state(mine.pk)[1].trays[by_seat.index(brian)] == (tile,)

    # The tournament's page, open on brian's screen, follows the games' ends live.
    b.goto(f"/tournaments/{tournament.pk}/")
    b.get_by_role("heading", name="Standings").wait_for()
    other = next(game for game in first_round if game.pk != mine.pk)
    committed(play_to_the_end, other)
    first, second = other.seats.order_by("place", "number")
    points = "½" if first.place == second.place else "1"  # a shared first: half each
    row = b.locator(".standings-table tr", has_text=first.user.username)
    row.locator("td.num strong", has_text=points).wait_for(timeout=TIMEOUT)
    screenshot(b, "tournament-mid-way", full_page=False)

    # The round's last game ends: round 2 appears on the page without a reload.
    committed(play_to_the_end, mine)
    b.get_by_text("Round 2", exact=True).wait_for(timeout=TIMEOUT)
    tournament.refresh_from_db()
    assert tournament.round == 2
    assert Game.objects.filter(tournament_round__number=2).count() == 2
    b.get_by_role("heading", name="Standings").scroll_into_view_if_needed()
    screenshot(b, "tournament-standings", full_page=True)

    # On a phone: the standings fit the screen's width; the crosstable-free Swiss page too.
    phone = open_page(chloe, viewport=PHONE, touch=True)
    phone.goto(f"/tournaments/{tournament.pk}/")
    phone.evaluate("document.querySelector('.standings-card').scrollIntoView()")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    table = phone.locator(".standings-table").bounding_box()
    assert table["x"] >= 0 and table["x"] + table["width"] <= PHONE["width"] + 1
    screenshot(phone, "tournament-standings-phone", full_page=False)
    # The list, with one more tournament taking entries.
    actions.create_tournament(
        organiser=chloe,
        name="Spring sections",
        format=Tournament.Format.ROUND_ROBIN,
        table_size=4,
        section_size=9,
        rounds=None,
        starts_at=timezone.now() + timedelta(days=10),
    )
    phone.goto("/tournaments/")
    screenshot(phone, "tournaments-list-phone", full_page=False)
    a.goto("/tournaments/")
    assert a.get_by_role("link", name="Spring sections").is_visible()
    screenshot(a, "tournaments-list", full_page=False)
