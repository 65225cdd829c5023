"""Following and blocking from a profile in the browser: htmx redraws the buttons in place
(with the page's CSRF token), the block asks first, and the pages pass axe-core."""

from datetime import timedelta

import pytest

from accounts.models import Block, Follow
from games.models import Game, Seat

from .helpers import serious_violations

pytestmark = pytest.mark.servers


def test_a_player_follows_and_blocks_from_a_profile_and_sees_the_following_list(
    open_page, make_player
):
    ada, brian = make_player("ada"), make_player("brian")
    game = Game.objects.create(
        created_by=brian,
        name="Brian at play",
        player_count=2,
        time_per_move=timedelta(days=1),
        status=Game.Status.PLAYING,
    )
    Seat.objects.create(game=game, user=brian, number=0)
    Seat.objects.create(game=game, user=make_player("chloe"), number=1)
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
