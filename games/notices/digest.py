"""The daily digest: once a day, in the reader's own morning, the games waiting for them."""

from datetime import date, datetime

from django.core.cache import cache
from django.db.models import F, Q

from accounts.models import User
from games import rules
from games.models import Game, Seat
from games.notices.emails import _zone, build_message, game_url
from games.notices.notice import DIGEST, wanted

# The digest goes out once a day, in the first hourly run that finds the player's local time in
# this window (a missed run or two still sends it that day).
DIGEST_HOURS = range(8, 12)


DIGEST_MARK_SECONDS = 36 * 3600


def digest_recipients(now: datetime) -> list[tuple[int, str]]:
    """Return (user id, local date) for digest readers whose local time is in DIGEST_HOURS."""
    readers = User.objects.filter(is_active=True, email_daily_digest=True)
    dates = {}
    for name in readers.values_list("time_zone", flat=True).distinct():
        local = now.astimezone(_zone(name))
        if local.hour in DIGEST_HOURS:
            dates[name] = local.date().isoformat()
    found = readers.filter(time_zone__in=dates).values_list("pk", "time_zone")
    return [(pk, dates[name]) for pk, name in found]


def waiting_seats(user: User):
    """Return the user's seats in games that wait for their move, soonest deadline first."""
    my_move = Q(game__phase=rules.DRAFTING, game__current_seat=F("number")) | Q(
        game__phase=rules.FINISHING, finished=False
    )
    return (
        Seat.objects.filter(user=user, game__status=Game.Status.PLAYING)
        .filter(my_move)
        .select_related("game")
        .order_by(F("game__deadline").asc(nulls_last=True), "game__pk")
    )


def send_digest(*, user_id: int, local_date: str) -> bool:
    """Send the user's digest for `local_date` unless it went already or nothing waits."""
    mark = f"notifications:digest:{user_id}:{local_date}"
    user = User.objects.filter(pk=user_id).first()
    if user is None or not wanted(user, DIGEST) or cache.get(mark):
        return False
    seats = list(waiting_seats(user))
    if not seats:
        return False
    games = [
        {
            "game": seat.game,
            "url": game_url(seat.game),
            "deadline": seat.game.deadline,
            "finishing": seat.game.phase == rules.FINISHING,
        }
        for seat in seats
    ]
    context = {"games": games, "day": date.fromisoformat(local_date)}
    build_message(DIGEST, user, context).send()
    cache.set(mark, True, DIGEST_MARK_SECONDS)
    return True
