"""Resigning in the browser: the Resign button asks first (a declined question changes nothing),
and the other players' pages show the resignation live; the server's easy player plays the seat
from then on."""

from datetime import timedelta

import pytest

from games.models import Seat
from games.play import actions

from .helpers import TIMEOUT, game_state, serious_violations, settled

pytestmark = pytest.mark.servers


def test_resign_asks_first_and_the_others_see_it_live(open_page, make_player):
    ada, brian, chloe = make_player("ada"), make_player("brian"), make_player("chloe")
    game = actions.create_game(creator=ada, player_count=3, time_per_move=timedelta(days=1))
    for player in (brian, chloe):
        actions.join_game(game_id=game.pk, user=player)
    game, state = game_state(game.pk)
    number = game.seats.get(user=ada).number
    mine, theirs = open_page(ada), open_page(brian)
    for page in (mine, theirs):
        page.goto(f"/games/{game.pk}/")
    assert theirs.locator(f"#seat-{number} .left-marker").count() == 0

    # Declined: nothing is sent, nothing changes.
    asked = []

    def decline(dialog):
        asked.append(dialog.message)
        dialog.dismiss()

    mine.once("dialog", decline)
    mine.locator("#resign").click()
    assert asked and "The server's easy player takes over your seat" in asked[0]
    assert "ranked after every player who stays" in asked[0]
    settled(mine)
    assert game_state(game.pk)[0].version == game.version
    assert game.seats.get(user=ada).left == ""

    # Accepted: the answer shows the page as it now is.
    mine.once("dialog", lambda dialog: dialog.accept())
    with mine.expect_response(lambda r: "/resign/" in r.url, timeout=TIMEOUT) as answer:
        mine.locator("#resign").click()
    assert answer.value.status == 200
    settled(mine)
    mine.wait_for_selector("#you-left", timeout=TIMEOUT)
    assert "You left this game (resigned)" in mine.locator("#you-left").inner_text()
    assert mine.locator("#resign").count() == 0
    assert game.seats.get(user=ada).left == Seat.Left.RESIGNED

    # brian's page shows it without a reload: the board's heading and the move log.
    marker = theirs.locator(f"#seat-{number} .left-marker")
    marker.wait_for(timeout=TIMEOUT)
    assert marker.inner_text() == "resigned · played by the server"
    theirs.wait_for_selector(
        "text=ada resigned: the server plays their seat from now on", timeout=TIMEOUT
    )
    # It was ada's turn: the worker's stand-in drafts for her seat, and brian's turn comes.
    if state.current == number:
        theirs.wait_for_selector("text=the server took a", timeout=TIMEOUT)

    serious, results = serious_violations(mine)
    assert not serious, results.generate_report()
    assert mine.errors == [] and theirs.errors == []
