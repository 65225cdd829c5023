"""Following and blocking from a profile in the browser: htmx redraws the buttons in place
(with the page's CSRF token), the block asks first, and the pages pass axe-core."""

from datetime import timedelta

import pytest

from accounts.models import Block, Follow
from games.play import actions

from .helpers import serious_violations

pytestmark = pytest.mark.servers


def test_a_player_follows_and_blocks_from_a_profile_and_sees_the_following_list(
    open_page, make_player
):
    ada, brian = make_player("ada"), make_player("brian")
    # A real game in play: the page the Following list links to is drawn (a row marked playing
    # without a deal was a server error, which the browser's console now says).
    game = actions.create_game(
        creator=brian, player_count=2, time_per_move=timedelta(days=1), name="Brian at play"
    )
    actions.join_game(game_id=game.pk, user=make_player("chloe"))
    page = open_page(ada)

    page.goto("/players/brian/")
    page.get_by_role("button", name="Follow").click()
    page.get_by_role("button", name="Unfollow").wait_for()
    assert Follow.objects.filter(follower=ada, followed=brian).exists()
    serious, _ = serious_violations(page)
    assert serious == []

    page.goto("/dashboard/")
    following = page.locator("#following")
    assert following.get_by_role("link", name="brian", exact=True).is_visible()
    following.get_by_role("link", name="Brian at play").click()
    page.wait_for_url(f"**/games/{game.pk}/")

    page.goto("/players/brian/")
    page.once("dialog", lambda dialog: dialog.accept())  # "Block brian? ..."
    page.get_by_role("button", name="Block").click()
    page.get_by_role("button", name="Unblock").wait_for()
    assert Block.objects.filter(blocker=ada, blocked=brian).exists()
    assert not Follow.objects.exists()

    page.goto("/settings/")
    blocked = page.locator("#blocked-players")
    assert blocked.get_by_role("link", name="brian", exact=True).is_visible()
    serious, _ = serious_violations(page)
    assert serious == []
    blocked.get_by_role("button", name="Unblock").click()
    page.get_by_text("You have blocked nobody").wait_for()
    assert not Block.objects.exists()
    assert page.errors == []
