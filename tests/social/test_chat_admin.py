"""The admin sees every message of the table talks, deleted ones too, and can take one out of
its talk for everyone: the open pages lose it, and the admin's history says who did it."""

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.live import pushes
from games.models import ChatMessage
from games.play import chat as talk

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(make_player, settings):
    settings.ADMIN_REQUIRE_MFA = False  # the second factor is tested in tests/accounts
    staff = make_player("moderator")
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(User.objects.get(pk=staff.pk))
    return client


def test_the_admin_lists_messages_deleted_ones_too_and_takes_one_out_for_everyone(
    start_game, admin_client, committed, monkeypatch
):
    game = start_game(2)
    author = game.seats.get(number=0).user
    kept = talk.send_message(game_id=game.pk, user=author, text="rude words").message
    taken_back = talk.send_message(game_id=game.pk, user=author, text="oops").message
    talk.delete_message(game_id=game.pk, message_id=taken_back.pk, user=author)

    listing = admin_client.get(reverse("admin:games_chatmessage_changelist")).content.decode()
    assert "rude words" in listing and "oops" in listing

    sent = []
    monkeypatch.setattr(pushes, "send", lambda messages: sent.extend(messages) or True)
    response = committed(
        admin_client.post,
        reverse("admin:games_chatmessage_changelist"),
        {"action": "remove_from_the_talk", "_selected_action": [kept.pk]},
    )

    assert response.status_code == 302
    kept.refresh_from_db()
    assert kept.deleted_at is not None
    assert [event["message"]["id"] for _, event in sent if event["type"] == "game.chat"] == [
        kept.pk
    ]
    reader = Client()
    reader.force_login(game.seats.get(number=1).user)
    assert "rude words" not in reader.get(reverse("games:game", args=[game.pk])).content.decode()
    entry = LogEntry.objects.get(object_id=str(kept.pk))
    assert entry.user.username == "moderator"
    assert entry.get_change_message() == "Taken out of the table talk."
    assert ChatMessage.objects.count() == 2  # nothing is deleted from the database


def test_a_muted_player_shows_in_the_admin_s_filter(admin_client, make_player):
    muted = make_player("loud")
    User.objects.filter(pk=muted.pk).update(chat_muted=True)
    make_player("quiet")
    page = admin_client.get(reverse("admin:accounts_user_changelist") + "?chat_muted__exact=1")
    listed = page.content.decode()
    assert ">loud</a>" in listed and ">quiet</a>" not in listed
