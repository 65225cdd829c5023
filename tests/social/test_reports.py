"""Reports: a player reports another player or one of their messages with a reason; the admin
sees it with the game's talk and moves, and may mute the player or close their account, which
the admin's history keeps."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from accounts.models import User
from games.models import Report
from games.play import chat as talk
from games.play import reports
from games.play.errors import ActionRefused
from tests.conftest import without_request_echoes
from tests.games.playing import draft_the_top_tile
from tests.live.conftest import login as client_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(make_player, settings):
    settings.ADMIN_REQUIRE_MFA = False
    staff = make_player("moderator")
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True)
    return client_of(User.objects.get(pk=staff.pk))


def test_a_message_is_reported_from_the_talk_with_a_reason(start_game):
    game = start_game(2)
    author, reader = (seat.user for seat in game.seats.order_by("number"))
    message = talk.send_message(game_id=game.pk, user=author, text="you are terrible").message
    page = client_of(reader).get(reverse("games:game", args=[game.pk])).content.decode()
    url = f"{reverse('games:report')}?message={message.pk}"
    assert f'href="{url}"' in page
    own = client_of(author).get(reverse("games:game", args=[game.pk])).content.decode()
    assert f'href="{url}"' not in own  # one does not report oneself

    response = client_of(reader).post(url, {"reason": "abuse", "details": "rude all game"})

    assert response.status_code == 302
    assert response["Location"] == reverse("games:game", args=[game.pk]) + "#chat"
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.game, report.message) == (
        reader,
        author,
        game,
        message,
    )
    assert (report.reason, report.details, report.resolved_at) == ("abuse", "rude all game", None)


def test_a_player_is_reported_from_their_profile(players):
    ada, brian = players[0], players[1]
    profile = client_of(ada).get(reverse("players:profile", args=[brian.username]))
    url = f"{reverse('games:report')}?player={brian.username}"
    assert f'href="{url}"' in profile.content.decode()
    page = client_of(ada).get(url)
    assert page.status_code == 200 and "Report brian" in page.content.decode()
    response = client_of(ada).post(url, {"reason": "name"})
    assert response["Location"] == reverse("players:profile", args=[brian.username])
    assert Report.objects.get().reported == brian


def test_reports_that_make_no_sense_are_refused(start_game, players, make_player):
    ada = players[0]
    with pytest.raises(ActionRefused, match="yourself"):
        reports.report(reporter=ada, reported_name="ada", reason="abuse")
    with pytest.raises(ActionRefused, match="no such player"):
        reports.report(reporter=ada, reported_name="nobody", reason="abuse")
    with pytest.raises(ActionRefused, match="Choose a reason"):
        reports.report(reporter=ada, reported_name="brian", reason="bored")
    # A message one cannot read (a private table's talk) is as good as missing.
    game = start_game(2, private=True)
    author = game.seats.get(number=0).user
    hidden = talk.send_message(game_id=game.pk, user=author, text="between us").message
    with pytest.raises(ActionRefused, match="no such message"):
        reports.report(reporter=make_player("stranger"), message_id=hidden.pk, reason="abuse")
    form = client_of(ada).post(f"{reverse('games:report')}?player=brian", {"reason": "x"})
    assert form.status_code == 200 and "errorlist" in form.content.decode()
    assert client_of(ada).get(f"{reverse('games:report')}?player=nobody").status_code == 404
    assert not Report.objects.exists()


def test_reports_are_rate_limited(players, settings):
    settings.REPORT_RATE_LIMIT = "2/h"
    ada = client_of(players[0])
    url = f"{reverse('games:report')}?player=brian"
    statuses = [ada.post(url, {"reason": "spam"}).status_code for _ in range(3)]
    assert statuses == [302, 302, 429]
    assert Report.objects.count() == 2


def test_the_admin_judges_a_report_with_the_talk_and_the_moves_and_mutes_or_closes(
    start_game, admin_client, committed
):
    game = start_game(2)
    author, reader = (seat.user for seat in game.seats.order_by("number"))
    draft_the_top_tile(game, committed)
    message = talk.send_message(game_id=game.pk, user=author, text="you are terrible").message
    gone = talk.send_message(game_id=game.pk, user=author, text="worse still").message
    talk.delete_message(game_id=game.pk, message_id=gone.pk, user=author)
    report = reports.report(reporter=reader, message_id=message.pk, reason="abuse")

    page = admin_client.get(reverse("admin:games_report_change", args=[report.pk]))
    html = page.content.decode()
    assert "you are terrible" in html and "worse still (deleted)" in html
    assert "took a" in html  # the move log's first confirmed draft, in words

    changelist = reverse("admin:games_report_changelist")
    admin_client.post(changelist, {"action": "mute_reported", "_selected_action": [report.pk]})
    author.refresh_from_db()
    report.refresh_from_db()
    assert author.chat_muted and report.resolved_at is not None
    with pytest.raises(ActionRefused):
        talk.send_message(game_id=game.pk, user=author, text="still here")

    again = reports.report(reporter=reader, reported_name=author.username, reason="abuse")
    admin_client.post(
        changelist, {"action": "close_reported_accounts", "_selected_action": [again.pk]}
    )
    author.refresh_from_db()
    assert not author.is_active
    history = [
        entry.get_change_message()
        for entry in LogEntry.objects.filter(object_id=str(author.pk)).order_by("pk")
    ]
    assert history == ["Muted in table talks (after a report).", "Account closed (after a report)."]


def test_the_report_page_names_only_a_message_its_reader_may_read(start_game, make_player):
    """`?message=N` says whose message it is and links its game: only to whoever may read that
    talk; any other message (a private table's, a deleted one, one that does not exist) is not
    found, the same way (issue 34)."""
    game = start_game(2, private=True)
    author, reader = (seat.user for seat in game.seats.order_by("number"))
    hidden = talk.send_message(game_id=game.pk, user=author, text="between us").message
    stranger = client_of(make_player("stranger"))

    missing = stranger.get(f"{reverse('games:report')}?message={hidden.pk + 1000}")
    page = stranger.get(f"{reverse('games:report')}?message={hidden.pk}")

    assert missing.status_code == page.status_code == 404
    assert without_request_echoes(page.content) == without_request_echoes(missing.content)
    assert "ada" not in page.content.decode() and "brian" not in page.content.decode()
    readable = client_of(reader).get(f"{reverse('games:report')}?message={hidden.pk}")
    assert readable.status_code == 200 and f"by {author.username}" in readable.content.decode()
    talk.delete_message(game_id=game.pk, message_id=hidden.pk, user=author)
    gone = client_of(reader).get(f"{reverse('games:report')}?message={hidden.pk}")
    assert gone.status_code == 404


def test_looking_up_messages_and_players_to_report_is_rate_limited(players, settings):
    settings.REPORT_LOOKUP_RATE_LIMIT = "3/h"
    ada = client_of(players[0])
    statuses = [ada.get(f"{reverse('games:report')}?message={n}").status_code for n in range(4)]
    assert statuses == [404, 404, 404, 429]
    assert ada.get(f"{reverse('games:report')}?player=brian").status_code == 429
