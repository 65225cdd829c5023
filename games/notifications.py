"""Who gets which email, and the emails themselves.

A state change in games/actions.py says what happened as `Notice`s; games/side_effects.py queues
them after the commit, one `games.send_notice` task per recipient, except for the recipients
whose own settings refuse that email (`wanted` is false: a bot, no address, the switch off, the
digest instead) and those watching the game at that moment (`watching_recipients`, most
players when their turn begins), whose task would send nothing. The task decides, when it
runs, whether the email is still wanted and still true:

- the recipient's switch for that kind is on (accounts.User.email_*), and per-turn emails (your
  move, finish your board, reminders) are held back for players who chose the daily digest;
- the recipient is not looking at the game right now (games.presence): they see it live;
- the turn is still theirs (a "your move" email for a turn they already took is never sent).

Each email is plain text and HTML from templates/emails/, shows times in the recipient's own time
zone, and carries a signed unsubscribe link and the List-Unsubscribe headers (RFC 8058 one-click).
"""

import logging
import zoneinfo
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.unsubscribe import unsubscribe_url
from games import rules

from . import presence
from .models import Event, Game, Invitation, Seat

logger = logging.getLogger(__name__)

YOUR_TURN = "your_turn"
FINISH = "finish"  # the pool is empty: finish your board before the deadline
REMINDER = "reminder"
TIMEOUT = "timeout"
INVITATION = "invitation"
GAME_STARTED = "game_started"
GAME_OVER = "game_over"
DIGEST = "digest"

# The switch on the User that allows each kind, and the unsubscribe topic its link turns off.
PREFERENCE = {
    YOUR_TURN: "email_your_turn",
    FINISH: "email_your_turn",
    REMINDER: "email_reminder",
    TIMEOUT: "email_timeout",
    INVITATION: "email_invitation",
    GAME_STARTED: "email_game_started",
    GAME_OVER: "email_game_over",
    DIGEST: "email_daily_digest",
}
TOPIC = {FINISH: "your_turn"}
# The daily digest replaces these for players who chose it.
PER_TURN = {YOUR_TURN, FINISH, REMINDER}

# The digest goes out once a day, in the first hourly run that finds the player's local time in
# this window (a missed run or two still sends it that day).
DIGEST_HOURS = range(8, 12)
DIGEST_MARK_SECONDS = 36 * 3600


@dataclass(frozen=True)
class Notice:
    """Something that happened that some players may want an email about.

    `version` says which state it is about: for a turn, the game's pool version when the turn
    began (the email is dropped once the pool or the turn has changed since).
    """

    kind: str
    game_id: int
    user_ids: tuple[int, ...]
    version: int = 0
    data: dict = field(default_factory=dict)


# --- deciding ----------------------------------------------------------------------------------


def wanted(user: User, kind: str, data: dict | None = None) -> bool:
    """Return whether the user's settings ask for this kind of email."""
    if not user.is_active or not user.email:
        return False
    if not getattr(user, PREFERENCE[kind]):
        return False
    if kind in PER_TURN and user.email_daily_digest:
        return False
    # The first player's game-started email already says it is their move.
    return not (kind == YOUR_TURN and (data or {}).get("at_start") and user.email_game_started)


def _held_while_watching(kind: str) -> bool:
    """Whether this kind of email is held back while its recipient has the game open (they see
    it there): every kind but the invitation, which the invitee acts on from the email."""
    return kind != INVITATION


def watching_recipients(recipients) -> set[tuple[int, int]]:
    """Of (notice, user id) pairs, return (game id, user id) of the recipients who have the
    notice's game open now (one cache round trip per game, none without a recipient): their
    email would be held back, so no task is queued for it."""
    wanted_by_game: dict[int, set[int]] = {}
    for notice, user_id in recipients:
        if _held_while_watching(notice.kind):
            wanted_by_game.setdefault(notice.game_id, set()).add(user_id)
    return {
        (game_id, user_id)
        for game_id, user_ids in wanted_by_game.items()
        for user_id in presence.watching(game_id, user_ids)
    }


def still_true(kind: str, game: Game, user: User, version: int) -> bool:
    """Return whether what the email says is still so (the player may have moved already)."""
    if kind == INVITATION:
        return game.is_waiting and not game.seats.filter(user=user).exists()
    if kind not in PER_TURN:
        return True
    if not game.is_playing:
        return False
    seat = game.seats.filter(user=user).first()
    if seat is None:
        return False
    if game.phase == rules.DRAFTING:
        return (
            kind in (YOUR_TURN, REMINDER)
            and game.current_seat == seat.number
            and game.pool_version == version
        )
    if game.phase == rules.FINISHING:
        return kind in (FINISH, REMINDER) and not seat.finished
    return False


def send_notice(*, kind: str, game_id: int, user_id: int, version: int = 0, data=None) -> bool:
    """Send one notice's email to one user if it is still wanted and true; return if it was.

    Raises the mail backend's error (smtplib.SMTPException, OSError) for the task to retry.
    """
    data = data or {}
    # First what needs no query: most players are looking at the game when their turn begins.
    if _held_while_watching(kind) and presence.is_watching(game_id, user_id):
        return False
    user = User.objects.filter(pk=user_id).first()
    game = Game.objects.filter(pk=game_id).select_related("created_by").first()
    if user is None or game is None or not wanted(user, kind, data):
        return False
    if not still_true(kind, game, user, version):
        return False
    context = _context_for(kind, game, user, version, data)
    if context is None:
        return False
    build_message(kind, user, context).send()
    return True


# --- the daily digest --------------------------------------------------------------------------


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


# --- writing -----------------------------------------------------------------------------------


def game_url(game: Game) -> str:
    return f"{settings.SITE_URL}{reverse('games:game', args=[game.pk])}"


def build_message(kind: str, user: User, context: dict) -> EmailMultiAlternatives:
    """Return the email of `kind` for `user`: subject, text and HTML from templates/emails/."""
    unsubscribe = unsubscribe_url(user, TOPIC.get(kind, kind))
    context = {
        **context,
        "site_name": settings.SITE_NAME,
        "site_url": settings.SITE_URL,
        "recipient": user,
        "unsubscribe_url": unsubscribe,
        "unsubscribe_all_url": unsubscribe_url(user, "all"),
        "settings_url": f"{settings.SITE_URL}{reverse('accounts:settings')}",
    }
    # Every time in the email is shown in the recipient's own time zone.
    with timezone.override(_zone(user.time_zone)):
        subject = render_to_string(f"emails/{kind}_subject.txt", context)
        text = render_to_string(f"emails/{kind}.txt", context)
        html = render_to_string(f"emails/{kind}.html", context)
    subject = " ".join(subject.split())
    message = EmailMultiAlternatives(
        subject=f"[{settings.SITE_NAME}] {subject}",
        body=text,
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def _context_for(kind: str, game: Game, user: User, version: int, data: dict) -> dict | None:
    seats = list(game.seats.select_related("user").order_by("number"))
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    context = {
        "game": game,
        "game_url": game_url(game),
        "seats": seats,
        "seat": mine,
        "opponents": [seat.user.username for seat in seats if seat.user_id != user.pk],
        "deadline": game.deadline,
        "time_per_move": duration_text(game.time_per_move),
    }
    if kind == INVITATION:
        invitation = Invitation.objects.filter(game=game, user=user).select_related("invited_by")
        invitation = invitation.first()
        if invitation is None:
            return None
        context["inviter"] = invitation.invited_by
    elif kind == GAME_STARTED:
        first = seats[0]  # seat 0 plays first
        context["first_player"] = first.user
        context["my_move"] = first.user_id == user.pk
        # The first turn's deadline, while the first turn lasts.
        still_first = game.is_playing and game.pool_version == version
        context["deadline"] = game.deadline if still_first else None
    elif kind == TIMEOUT:
        tile = data.get("tile")
        context["tile"] = rules.TILES[tile] if tile is not None else None
        context["confirmed"] = bool(data.get("confirmed"))
        context["timeouts"] = mine.timeouts if mine else 0
    elif kind == GAME_OVER:
        if mine is None or mine.place is None:
            return None
        context["place"] = ordinal(mine.place)
        context["standings"] = [
            {"place": ordinal(seat.place), "seat": seat}
            for seat in sorted(seats, key=lambda seat: (seat.place, seat.number))
        ]
        # Whether their finishing time ran out (the board was submitted for them).
        context["late"] = game.events.filter(seat=mine.number, cause=Event.Cause.DEADLINE).exists()
    return context


def ordinal(number: int) -> str:
    """Return 1st, 2nd, 3rd, 4th ... for a place."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def duration_text(duration: timedelta) -> str:
    """Return a time per move in words: "1 day", "2 days 6 hours", "90 minutes"."""
    minutes = int(duration.total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    words = [f"{count} {unit}{'s' if count != 1 else ''}" for count, unit in parts if count]
    return " ".join(words) or "no time"


def _zone(name: str):
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")
