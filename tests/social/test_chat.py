"""The table talk (games/chat.py, games/play/chat.py): who may write and read it, what a message
may hold and how it is shown, deleting one's own within the window, the rate limit, what is
unread, and that nothing of it changes the game."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import chat
from games.models import ChatMessage, Game, Seat
from games.play import actions
from games.play import chat as talk
from games.play.errors import ActionRefused
from tests.live.conftest import login as client_of

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def say(client, game, text, **headers):
    return client.post(reverse("games:chat", args=[game.pk]), {"text": text}, **HTMX, **headers)


def seated_users(game):
    return [seat.user for seat in game.seats.select_related("user").order_by("number")]


def page(client, game) -> str:
    return client.get(reverse("games:game", args=[game.pk])).content.decode()


def test_a_player_s_message_is_kept_with_the_version_and_shown_to_the_table(start_game, players):
    game = start_game(2)
    writer, reader = seated_users(game)

    response = say(client_of(writer), game, "Good luck, have fun!")

    assert response.status_code == 200
    message = ChatMessage.objects.get(game=game)
    assert (message.author, message.text, message.version) == (
        writer,
        "Good luck, have fun!",
        game.version,
    )
    assert f'id="chat-{message.pk}"' in response.content.decode()
    assert "Good luck, have fun!" in page(client_of(reader), game)
    game.refresh_from_db()
    assert game.version == message.version  # not a move: no draft is made stale by talk


def test_only_the_players_of_a_started_game_write(start_game, players, make_player):
    game = start_game(2)
    outsider = make_player("watcher")
    with pytest.raises(ActionRefused) as refused:
        talk.send_message(game_id=game.pk, user=outsider, text="hi")
    assert refused.value.code == "not_a_player"
    assert say(client_of(outsider), game, "hi").status_code == 403

    waiting = actions.create_game(
        creator=players[0], player_count=3, time_per_move=timedelta(days=1)
    )
    with pytest.raises(ActionRefused) as refused:
        talk.send_message(game_id=waiting.pk, user=players[0], text="anyone?")
    assert refused.value.code == "not_started"
    assert not ChatMessage.objects.exists()


def test_a_game_one_cannot_see_is_not_found(start_game, players, make_player):
    game = start_game(2, private=True)
    stranger = client_of(make_player("stranger"))
    assert say(stranger, game, "let me in").status_code == 404
    assert stranger.get(reverse("games:chat", args=[game.pk])).status_code == 404
    assert not ChatMessage.objects.exists()


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("", "Write a message first."),
        ("   \n\t ", "Write a message first."),
        ("x" * 501, "A message is at most 500 characters (501 here)."),
        ("bell \x07 here", "A message cannot hold control characters."),
        ("evil \u202etxt.exe", "A message cannot hold control characters."),
    ],
)
def test_a_message_that_cannot_be_kept_is_refused_in_words(start_game, text, refusal):
    game = start_game(2)
    writer = seated_users(game)[0]
    response = say(client_of(writer), game, text)
    assert response.status_code == 422
    assert response.content.decode() == refusal
    assert not ChatMessage.objects.exists()


def test_line_breaks_and_tabs_become_spaces_and_500_characters_are_kept():
    assert chat.clean_text("  one\r\ntwo\tthree\n ") == "one two three"
    assert chat.clean_text("é" * 500) == "é" * 500


def test_a_message_is_escaped_and_its_links_open_apart_from_the_game(start_game):
    game = start_game(2)
    writer, reader = seated_users(game)
    text = '<script>alert("x")</script> see https://example.org/rules?a=1&b=2 "quoted"'
    say(client_of(writer), game, text)

    html = page(client_of(reader), game)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert (
        '<a href="https://example.org/rules?a=1&amp;b=2" rel="nofollow noopener noreferrer" '
        'target="_blank">https://example.org/rules?a=1&amp;b=2</a>'
    ) in html
    # Only http(s) addresses become links: a javascript: one stays text.
    say(client_of(writer), game, "javascript:alert(1)")
    assert 'href="javascript' not in page(client_of(reader), game)


def test_spectators_read_the_talk_unless_the_table_says_not(start_game, make_player):
    watcher = client_of(make_player("watcher"))
    open_game = start_game(2)
    closed_game = start_game(2, spectators_read_chat=False)
    for game in (open_game, closed_game):
        say(client_of(seated_users(game)[0]), game, f"secret of table {game.pk}")

    assert f"secret of table {open_game.pk}" in page(watcher, open_game)
    closed = page(watcher, closed_game)
    assert f"secret of table {closed_game.pk}" not in closed
    assert "The players' talk at this table is theirs alone." in closed
    listed = watcher.get(reverse("games:chat", args=[closed_game.pk])).content.decode()
    assert "secret" not in listed
    # A watcher has no form to write with.
    assert 'id="chat-text"' not in page(watcher, open_game)


def test_an_author_deletes_their_message_within_the_window_and_nobody_sees_it_after(
    start_game, settings
):
    game = start_game(2)
    writer, reader = seated_users(game)
    said = talk.send_message(game_id=game.pk, user=writer, text="oops, wrong game")
    url = reverse("games:chat_delete", args=[game.pk, said.message.pk])

    assert client_of(reader).post(url, **HTMX).status_code == 403  # not theirs
    response = client_of(writer).post(url, **HTMX)

    assert response.status_code == 200
    assert "data-deleted" in response.content.decode()
    assert "oops, wrong game" not in page(client_of(reader), game)
    assert ChatMessage.objects.get().deleted_at is not None  # kept for the admin

    late = talk.send_message(game_id=game.pk, user=writer, text="too late to take back")
    ChatMessage.objects.filter(pk=late.message.pk).update(
        created_at=timezone.now() - timedelta(minutes=settings.CHAT_DELETE_MINUTES, seconds=1)
    )
    response = client_of(writer).post(
        reverse("games:chat_delete", args=[game.pk, late.message.pk]), **HTMX
    )
    assert response.status_code == 422
    assert "only in the 5 minutes after it was written" in response.content.decode()
    assert "too late to take back" in page(client_of(reader), game)


def test_the_delete_button_shows_only_on_one_s_own_recent_messages(start_game):
    game = start_game(2)
    writer, reader = seated_users(game)
    say(client_of(writer), game, "hello")
    assert "chat-delete" in page(client_of(writer), game)
    assert "chat-delete" not in page(client_of(reader), game)


def test_messages_are_rate_limited_per_player(start_game, settings):
    settings.CHAT_RATE_LIMIT = "3/m"
    game = start_game(2)
    writer = client_of(seated_users(game)[0])
    assert [say(writer, game, f"message {n}").status_code for n in range(4)] == [200] * 3 + [429]
    assert "Too many messages" in say(writer, game, "again").content.decode()
    assert ChatMessage.objects.count() == 3


def test_a_muted_player_cannot_write(start_game):
    game = start_game(2)
    writer = seated_users(game)[0]
    writer.chat_muted = True
    writer.save()
    assert say(client_of(writer), game, "hello").status_code == 403
    assert "You may not write in table talks." in page(client_of(writer), game)
    assert not ChatMessage.objects.exists()


def unread(user, game) -> int:
    """How many of the others' messages `user` has not read, as the dashboard counts them."""
    seat = Seat.objects.filter(game=game, user=user).annotate(unread=chat.unread_of_seat())
    return seat.get().unread


def test_unread_messages_count_until_the_player_opens_the_game(start_game):
    game = start_game(2)
    writer, reader = seated_users(game)
    for n in range(2):
        talk.send_message(game_id=game.pk, user=writer, text=f"news {n}")

    assert (
        unread(reader, game) == 2 == chat.unread_for_seat(Seat.objects.get(game=game, user=reader))
    )
    assert unread(writer, game) == 0  # one's own are read
    page(client_of(reader), game)
    assert unread(reader, game) == 0


def test_the_page_says_how_far_it_has_read_never_backwards_nor_past_the_newest(start_game):
    game = start_game(2)
    writer, reader = seated_users(game)
    first = talk.send_message(game_id=game.pk, user=writer, text="one").message
    second = talk.send_message(game_id=game.pk, user=writer, text="two").message
    url = reverse("games:chat_read", args=[game.pk])
    reader_client = client_of(reader)

    assert reader_client.post(url, {"up_to": first.pk}, **HTMX).status_code == 204
    assert unread(reader, game) == 1
    reader_client.post(url, {"up_to": second.pk + 1000}, **HTMX)
    assert Seat.objects.get(game=game, user=reader).chat_read == second.pk
    reader_client.post(url, {"up_to": first.pk}, **HTMX)
    assert Seat.objects.get(game=game, user=reader).chat_read == second.pk
    assert reader_client.post(url, {"up_to": "-1"}, **HTMX).status_code == 400


def test_talk_goes_on_after_the_game_ends(start_game):
    game = start_game(2)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ENDED)
    writer = seated_users(game)[0]
    assert say(client_of(writer), game, "good game").status_code == 200


def test_a_plain_form_post_goes_back_to_the_talk(start_game):
    game = start_game(2)
    writer = client_of(seated_users(game)[0])
    response = writer.post(reverse("games:chat", args=[game.pk]), {"text": "no script here"})
    assert response.status_code == 302
    assert response["Location"] == reverse("games:game", args=[game.pk]) + "#chat"
    assert ChatMessage.objects.get().text == "no script here"


def test_the_dashboard_shows_each_game_s_unread_messages(start_game):
    game = start_game(2)
    writer, reader = seated_users(game)
    for n in range(3):
        talk.send_message(game_id=game.pk, user=writer, text=f"news {n}")
    deleted = talk.send_message(game_id=game.pk, user=writer, text="taken back").message
    talk.delete_message(game_id=game.pk, message_id=deleted.pk, user=writer)

    dashboard = client_of(reader).get(reverse("dashboard")).content.decode()
    assert f'href="{reverse("games:game", args=[game.pk])}#chat">3 new messages</a>' in dashboard
    assert "new message" not in client_of(writer).get(reverse("dashboard")).content.decode()

    page(client_of(reader), game)
    assert "new message" not in client_of(reader).get(reverse("dashboard")).content.decode()


def test_an_empty_talk_says_so_and_invites_the_players_to_write(start_game, make_player):
    game = start_game(2)
    player = seated_users(game)[0]
    assert "No messages yet. Say hello to the table." in page(client_of(player), game)
    watching = page(client_of(make_player("watcher")), game)
    assert "No messages yet." in watching and "Say hello" not in watching
    say(client_of(player), game, "hello")
    assert "No messages yet" not in page(client_of(player), game)
