"""A player's daily digest, sent for real: one game waits for their move."""

from datetime import timedelta

from django.core import mail

from games.play import actions
from infra.models import OutboxEmail
from infra.tasks import send_email
from tests.games.playing import draft_the_top_tile


def digest_for(players, reader):
    """A game waiting for `reader`'s move (players[1] opened it), and their digest sent now;
    return the email and `reader`'s seat."""
    reader.email_daily_digest = True
    reader.save()
    game = actions.create_game(creator=players[1], player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=reader)
    game.refresh_from_db()
    if game.current_seat != game.seats.get(user=reader).number:
        draft_the_top_tile(game, lambda call, **kw: call(**kw))
    mail.outbox.clear()
    row = OutboxEmail.objects.create(
        kind="digest", user=reader, data={"date": "2030-01-15"}, message_id="<d@x>"
    )
    assert send_email.delay(row.pk).get() == "sent"
    [digest] = mail.outbox
    game.refresh_from_db()
    return digest, game.seats.select_related("game").get(user=reader)
