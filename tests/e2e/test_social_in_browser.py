"""Playing the same people again, finding a game, and reporting a player, in the browser: a
rematch asked for on an ended game's page reaches the other players' open pages live and starts
when all have taken a seat, or is called off live when one declines; quick play pairs two
players (the second lands on the game, the first is told live); a message reported from the
table talk reaches the admin, whose "mute" takes the player's chat form away. What the server
allows is tested in tests/social (test_rematch.py, test_rematch_live.py, test_quick_play.py,
test_reports.py)."""

import re

import pytest
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

from accounts.models import User
from games.models import ChatMessage, Game, QuickPlaySeek, Report, Seat
from games.play import chat as talk
from tests.accounts.second_factor import totp_code
from tests.games.playing import play_to_the_end

from .helpers import TIMEOUT, settled

pytestmark = pytest.mark.servers

# Notes the page's socket: ready once its first message came (the server sends one only after
# the socket joined its groups, so a push reaches it from then on).
LISTEN = """
window.__ready = false;
document.addEventListener("htmx:wsBeforeMessage", () => { window.__ready = true; });
"""


def players_of(game):
    """The game's players, in seat order."""
    return [seat.user for seat in game.seats.select_related("user").order_by("number")]


def ended(game):
    """End `game` in the database, as the server tests do, with places and scores for its
    results."""
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ENDED)
    for place, seat in enumerate(game.seats.order_by("number"), start=1):
        Seat.objects.filter(pk=seat.pk).update(place=place, score=30 - 5 * place)
    game.refresh_from_db()
    return game


def listening(page):
    """Wait until the page's live socket listens (a push may come now); mark the document, to
    tell a live change from a page load."""
    page.wait_for_function("() => window.__ready", timeout=TIMEOUT)
    page.evaluate("() => { window.__loaded = true; }")  # gone if the page is loaded again
    return page


def with_socket(page, path):
    """Open `path` on `page` and wait until its live socket listens."""
    page.add_init_script(LISTEN)
    page.goto(path)
    return listening(page)


def shows_the_results_live(page):
    """The game ended while the page was open: its results come without a reload."""
    page.wait_for_selector("#game .results", state="attached", timeout=TIMEOUT)
    page.locator("#rematch").get_by_role("button", name="Rematch").wait_for(timeout=TIMEOUT)
    assert page.evaluate("() => window.__loaded") is True


def off_to_another_table(page, game_id):
    """Wait until `page` has left the game `game_id` for another game's address."""
    page.wait_for_url(
        lambda url: (
            re.search(r"/games/\d+/$", url) is not None and not url.endswith(f"/games/{game_id}/")
        ),
        timeout=TIMEOUT,
    )


def another_tab(page):
    """A second tab of the same browser (the same player)."""
    return page.context.new_page()  # watched as every page of the context (conftest)


def test_a_rematch_asked_for_reaches_the_other_player_live_and_starts_when_both_sit(
    open_page, start_game
):
    game = start_game(2)
    ada, brian = players_of(game)
    a = with_socket(open_page(ada), f"/games/{game.pk}/")
    b = with_socket(open_page(brian), f"/games/{game.pk}/")
    game = play_to_the_end(game)
    for page in (a, b):
        shows_the_results_live(page)
        assert page.locator(".results").get_by_role("heading", name="Results").is_visible()

    a.locator("#rematch").get_by_role("button", name="Rematch").click()

    off_to_another_table(a, game.pk)
    rematch = Game.objects.get(rematch_of=game)
    assert a.url.endswith(f"/games/{rematch.pk}/")
    assert a.locator(".waiting-room").get_by_text("A rematch of").is_visible()
    assert [seat.user for seat in rematch.seats.all()] == [ada]
    listening(a)  # Ada's waiting room, listening for the start

    # Brian's page of the ended game tells him, without a reload, in a card he answers there;
    # the same offer's notice (which his other pages get) is not said twice here.
    offer = b.locator("#rematch")
    offer.get_by_text("asks for a rematch").wait_for(timeout=TIMEOUT)
    assert offer.locator("strong").inner_text() == ada.username
    assert offer.get_by_role("link", name=f"Rematch: {game.title}").is_visible()
    assert offer.get_by_role("button", name="Rematch").count() == 0
    assert b.locator("#live-notice .rematch-offer").count() == 0
    assert b.evaluate("() => window.__loaded") is True

    offer.get_by_role("button", name="Accept").click()
    b.wait_for_url(f"**/games/{rematch.pk}/")

    b.wait_for_selector("#game", timeout=TIMEOUT)  # the game page
    a.wait_for_selector("#game", timeout=TIMEOUT)  # Ada's waiting room became the game page
    assert a.evaluate("() => window.__loaded") is True
    rematch.refresh_from_db()
    assert rematch.is_playing
    assert {seat.user_id for seat in rematch.seats.all()} == {ada.pk, brian.pk}
    for page in (a, b):
        assert page.locator("section.seat").count() == 2
        assert page.errors == []


def test_one_player_declining_calls_the_rematch_off_live_on_the_asker_s_page(open_page, start_game):
    game = start_game(3)
    ada, brian, chloe = players_of(game)
    a = with_socket(open_page(ada), f"/games/{game.pk}/")  # stays on the ended game
    game = play_to_the_end(game)
    shows_the_results_live(a)
    c = with_socket(open_page(chloe), "/dashboard/")  # Chloe is on her dashboard
    asking = another_tab(a)  # Ada asks from another tab
    asking.goto(f"/games/{game.pk}/")
    asking.locator("#rematch").get_by_role("button", name="Rematch").click()
    off_to_another_table(asking, game.pk)
    rematch = Game.objects.get(rematch_of=game)
    asked = a.locator("#rematch").get_by_text("You asked for a rematch")
    asked.wait_for(timeout=TIMEOUT)
    first, second = sorted([brian.username, chloe.username])
    assert f"waiting for {first} and {second} to accept" in asked.inner_text()

    # Chloe's dashboard shows the offer live, as a card to answer there.
    notice = c.locator("#live-notice .rematch-offer")
    notice.wait_for(timeout=TIMEOUT)
    assert notice.get_by_role("link", name=f"Rematch: {game.title}").is_visible()
    assert notice.get_by_role("button", name="Accept").is_visible()
    assert c.evaluate("() => window.__loaded") is True

    # Brian takes a seat (Ada's card follows); Chloe says no, on her dashboard's card.
    b = open_page(brian)
    b.goto(f"/games/{rematch.pk}/")
    b.get_by_role("button", name="Take a seat").click()
    b.get_by_role("button", name="Leave the table").wait_for(timeout=TIMEOUT)
    waiting = a.locator("#rematch").get_by_text(f"waiting for {chloe.username} to accept")
    waiting.wait_for(timeout=TIMEOUT)
    c.reload()  # the dashboard's own list says it too
    card = c.locator("#invitations .rematch-offer")
    assert card.get_by_role("link", name=f"Rematch: {game.title}").is_visible()
    assert card.get_by_role("button", name="Accept").is_visible()
    assert card.get_by_role("button", name="Decline").is_visible()
    # She answers on the ended game's page: its results' card (htmx posts it).
    c.goto(f"/games/{game.pk}/")
    c.locator("#rematch").get_by_role("button", name="Decline").click()
    c.locator(".messages").get_by_text("You declined the invitation").wait_for(timeout=TIMEOUT)
    assert c.url.endswith(f"/games/{game.pk}/")
    assert c.locator("#rematch").get_by_text("The rematch was called off.").is_visible()

    box = a.locator("#rematch")
    box.get_by_text("The rematch was called off.").wait_for(timeout=TIMEOUT)
    assert box.get_by_role("button", name="Rematch").is_visible()
    assert a.evaluate("() => window.__loaded") is True
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.CANCELLED

    # The Rematch button the push drew works (htmx posts it with the page's CSRF token): a
    # new rematch, at another table.
    box.get_by_role("button", name="Rematch").click()
    off_to_another_table(a, game.pk)
    again = Game.objects.filter(rematch_of=game).latest("pk")
    assert again.pk != rematch.pk and again.is_waiting
    assert a.url.endswith(f"/games/{again.pk}/")
    for page in (a, asking, b, c):
        assert page.errors == []


def test_an_ended_game_opened_after_its_end_hears_of_the_rematch_live(open_page, start_game):
    game = ended(start_game(2))
    ada, brian = players_of(game)
    a = with_socket(open_page(ada), f"/games/{game.pk}/")
    b = with_socket(open_page(brian), f"/games/{game.pk}/")
    for page in (a, b):
        assert page.locator("#rematch").get_by_role("button", name="Rematch").is_visible()

    a.locator("#rematch").get_by_role("button", name="Rematch").click()
    off_to_another_table(a, game.pk)
    assert Game.objects.filter(rematch_of=game).exists()

    # A push comes in milliseconds: a few seconds are plenty.
    b.locator("#rematch").get_by_text("asks for a rematch").wait_for(timeout=3_000)
    assert b.evaluate("() => window.__loaded") is True


def find_a_game(page, *, players="2", time="1d", rated=True):
    """Ask quick play for a game from the lobby, with these choices."""
    card = page.locator("section.quick-play")
    card.get_by_label("Players").select_option(players)
    card.get_by_label("Time per move").select_option(time)
    card.get_by_label("Rated").set_checked(rated)
    card.get_by_role("button", name="Find a game").click()


def test_quick_play_pairs_two_players_and_tells_the_first_live(open_page, make_player):
    ada, brian = make_player("ada"), make_player("brian")
    a, b = open_page(ada), open_page(brian)

    a.goto("/games/")
    find_a_game(a)
    a.wait_for_url("**/games/")
    card = a.locator("section.quick-play")
    assert card.get_by_text("Looking for a game: 2 players").is_visible()
    assert card.get_by_role("button", name="Stop looking").is_visible()
    assert QuickPlaySeek.objects.filter(user=ada).exists()
    with_socket(a, "/games/")  # the lobby, as Ada leaves it open, listening

    b.goto("/games/")
    find_a_game(b)
    b.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get(name="Quick play")
    assert b.url.endswith(f"/games/{game.pk}/")
    b.wait_for_selector("#game", timeout=TIMEOUT)
    assert game.is_playing and {seat.user_id for seat in game.seats.all()} == {ada.pk, brian.pk}
    assert not QuickPlaySeek.objects.exists()

    # Ada's lobby is told, without a reload, and the notice leads to the game.
    link = a.locator("#live-notice").get_by_role("link", name=game.title)
    link.wait_for(timeout=TIMEOUT)
    assert a.evaluate("() => window.__loaded") is True
    link.click()
    a.wait_for_url(f"**/games/{game.pk}/")
    a.wait_for_selector("#game", timeout=TIMEOUT)
    assert a.locator("section.seat.mine").count() == 1
    assert a.errors == [] and b.errors == []


def staff_in_the_admin(open_page, make_player):
    """A staff member's page, let into the admin with their authenticator app's code (the
    browser tests' server requires a second factor, as production does)."""
    staff = make_player("warden")
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True)
    staff.refresh_from_db()
    secret = generate_totp_secret()
    TOTP.activate(staff, secret)
    page = open_page(staff)
    page.goto("/admin/")
    page.get_by_role("link", name="Confirm with your authenticator app").click()
    page.fill("input[name=code]", totp_code(secret))
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/admin/")
    return page


def test_a_reported_message_reaches_the_admin_whose_mute_takes_the_chat_form_away(
    open_page, start_game, make_player
):
    game = start_game(2)
    ada, brian = players_of(game)
    talk.send_message(game_id=game.pk, user=ada, text="good luck")
    talk.send_message(game_id=game.pk, user=brian, text="you play like a potato")
    message = ChatMessage.objects.get(author=brian)

    # Ada reports Brian's message from the game page.
    a = open_page(ada)
    a.goto(f"/games/{game.pk}/")
    item = a.locator(f"#chat-{message.pk}")
    assert a.locator("#chat-messages .chat-report").count() == 1  # not beside her own message
    item.get_by_role("link", name="Report this message").click()
    a.wait_for_url(re.compile(rf"/games/report/\?message={message.pk}$"))
    assert a.get_by_role("heading", name=f"Report a message by {brian.username}").is_visible()
    a.get_by_label("Abuse or harassment").check()
    a.get_by_label("What happened (optional)").fill("Rude to me in the table talk.")
    a.get_by_role("button", name="Send the report").click()
    a.wait_for_url(re.compile(rf"/games/{game.pk}/#chat$"))
    assert a.locator(".messages").get_by_text("Thank you: your report goes").is_visible()
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.message_id, report.reason) == (
        ada,
        brian,
        message.pk,
        "abuse",
    )

    # The admin reads it, with the message, and mutes Brian.
    staff = staff_in_the_admin(open_page, make_player)
    staff.goto(f"/admin/games/report/{report.pk}/change/")
    shown = staff.locator("#content").inner_text()
    assert f"{brian.username}: you play like a potato" in shown
    assert "Rude to me in the table talk." in shown
    assert f"{ada.username}: good luck" in shown  # the game's whole talk, for the context
    staff.goto("/admin/games/report/")
    staff.locator(f"input[name=_selected_action][value='{report.pk}']").check()
    staff.locator("select[name=action]").select_option(
        label="Mute the reported players in table talks, and resolve"
    )
    staff.get_by_role("button", name="Go").click()
    staff.locator(".messagelist").get_by_text("1 report resolved").wait_for(timeout=TIMEOUT)
    brian.refresh_from_db()
    report.refresh_from_db()
    assert brian.chat_muted and report.resolved_at is not None

    # Brian, loading the game again, may read the talk but not write in it.
    b = open_page(brian)
    b.goto(f"/games/{game.pk}/")
    chat = b.locator("#chat")
    assert chat.get_by_text("You may not write in table talks.").is_visible()
    assert chat.locator("form, #chat-text").count() == 0
    assert chat.get_by_text("you play like a potato").is_visible()
    settled(b)
    for page in (a, staff, b):
        assert page.errors == []
