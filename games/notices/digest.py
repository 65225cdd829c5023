"""The daily digest: once a day, in the reader's own morning, the games waiting for them."""

from datetime import date, datetime

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import F

from accounts.models import User, zone_named
from games import chat, rules
from games.models import Seat, waiting_for_move
from games.notices.emails import as_recipient, build_message, game_url
from games.notices.notice import DIGEST, wanted
from infra.models import OutboxEmail

# The digest goes out once a day, in the first hourly run that finds the player's local time in
# this window, from settings.DIGEST_HOUR on (a missed run or two still sends it that day).
DIGEST_HOURS = range(settings.DIGEST_HOUR, settings.DIGEST_HOUR + 4)


def digest_time() -> str:
    """When the digest comes, in the reader's own time zone, as the email and the settings page
    say it: "8:00"."""
    return f"{settings.DIGEST_HOUR}:00"


def digest_recipients(now: datetime) -> list[tuple[int, str]]:
    """Return (user id, local date) for digest readers whose local time is in DIGEST_HOURS."""
    readers = User.objects.filter(is_active=True, email_daily_digest=True)
    dates = {}
    for name in readers.values_list("time_zone", flat=True).distinct():
        local = now.astimezone(zone_named(name))
        if local.hour in DIGEST_HOURS:
            dates[name] = local.date().isoformat()
    found = readers.filter(time_zone__in=dates).values_list("pk", "time_zone")
    return [(pk, dates[name]) for pk, name in found]


def waiting_seats(user: User):
    """Return the user's seats in games that wait for their move, soonest deadline first."""
    return (
        Seat.objects.filter(waiting_for_move(), user=user)
        .annotate(unread_chat=chat.unread_of_seat())
        .select_related("game")
        .order_by(F("game__deadline").asc(nulls_last=True), "game__pk")
    )


def digest_message(email: OutboxEmail) -> EmailMultiAlternatives | None:
    """The digest of an outbox row, if its reader still wants it and a game waits for them."""
    user = email.user
    if user is None or not wanted(user, DIGEST):
        return None
    with as_recipient(user):  # in their language and time zone
        return _digest(email, user)


def _digest(email: OutboxEmail, user: User) -> EmailMultiAlternatives | None:
    seats = list(waiting_seats(user))
    if not seats:
        return None
    games = [
        {
            "game": seat.game,
            "url": game_url(seat.game_id),
            "deadline": seat.clock_deadline,
            "finishing": seat.game.phase == rules.FINISHING,
            "unread_chat": seat.unread_chat,  # counted, never quoted
        }
        for seat in seats
    ]
    context = {
        "games": games,
        "day": date.fromisoformat(email.data["date"]),
        "digest_time": digest_time(),
        "time_zone": user.time_zone,
    }
    return build_message(DIGEST, user, context, message_id=email.message_id)
