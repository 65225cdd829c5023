"""Every email of a whole game goes out in its recipient's language (issue 24): a table of four
players who read Spanish, French, German and English, invited, started, played to the end and
ended; each email's subject, text and HTML are in its reader's language, whoever's move sent it."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import translation

from games.notices.emails import notice_message
from games.play import actions
from infra.models import OutboxEmail
from tests.games.playing import play_to_the_end

LANGUAGES = ("es", "fr", "de", "")  # "" reads English: an email has no browser to ask


def test_every_email_of_a_game_is_in_its_readers_language(players, committed):
    readers = players[:4]
    for player, language in zip(readers, LANGUAGES, strict=True):
        player.language = language
        player.save(update_fields=["language"])
    with translation.override("fr"):  # the language of whoever causes the emails never counts
        game = committed(
            actions.create_game,
            creator=readers[0],
            player_count=4,
            time_per_move=timedelta(days=1),
            invitees=tuple(player.username for player in readers[1:]),
        )
        for player in readers[1:]:
            committed(actions.join_game, game_id=game.pk, user=player)
        committed(play_to_the_end, game)

    language_of = {player.email: player.language or "en-gb" for player in readers}
    sent = [(message, language_of[message.to[0]]) for message in mail.outbox]
    english = {message.subject for message, language in sent if language == "en-gb"}
    assert len(english) >= 3  # the start, turns, the end: several kinds of email
    for message, language in sent:
        html = message.alternatives[0][0]
        assert f'<html lang="{language}">' in html, (language, message.subject)
        if language != "en-gb":  # no subject of theirs is one the English reader got
            assert message.subject not in english, (language, message.subject)
            assert message.body.strip(), language
    assert {language for _, language in sent} == {"es", "fr", "de", "en-gb"}


@pytest.mark.parametrize("language", ["es", "fr", "de"])
@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("reminder", {}),
        ("timeout", {"tile": 7, "confirmed": False}),
        ("handed_over", {"reason": "abandoned", "in_row": 3, "total": 3}),
    ],
)
def test_the_emails_of_the_clock_are_in_their_readers_language(start_game, kind, data, language):
    game = start_game(2)
    seat = game.seats.get(number=game.current_seat)
    reader = seat.user
    english = notice_message(
        OutboxEmail(kind=kind, user=reader, game_id=game.pk, version=game.version, data=data)
    )
    assert english is not None, kind
    reader.language = language
    reader.save(update_fields=["language"])
    with translation.override("en-gb"):  # whoever's process sends it
        message = notice_message(
            OutboxEmail(kind=kind, user=reader, game_id=game.pk, version=game.version, data=data)
        )
    assert f'<html lang="{language}">' in message.alternatives[0][0]
    assert message.subject != english.subject
    assert message.body != english.body
