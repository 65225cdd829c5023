"""The emails about games: whether one is still due when its turn to be sent comes, and what
it says.

Each email is plain text and HTML from templates/emails/, shows times in the recipient's own time
zone, and carries a signed unsubscribe link and the List-Unsubscribe headers (RFC 8058 one-click).
"""

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.unsubscribe import unsubscribe_url
from games import presence, rules
from games.models import Event, Game, Invitation, OutboxEmail
from games.notices.notice import (
    GAME_OVER,
    GAME_STARTED,
    INVITATION,
    TIMEOUT,
    TOPIC,
    held_while_watching,
    still_true,
    wanted,
)
from microchip_site.words import duration_words, ordinal


def notice_message(email: OutboxEmail) -> EmailMultiAlternatives | None:
    """The email of an outbox row made from a notice, if it is still due now: its recipient
    still wants it, is not watching the game, and what it says is still true; else None."""
    context = notice_context(email)
    if context is None:
        return None
    return build_message(email.kind, email.user, context, message_id=email.message_id)


def notice_context(email: OutboxEmail) -> dict | None:
    """What an outbox row made from a notice says (its email's context), if it is still due
    now, whichever its channel (an email, or a Web Push: games/notices/webpush.py); else None."""
    user, game, kind = email.user, email.game, email.kind
    if user is None or game is None or not wanted(user, kind, email.data):
        return None
    if held_while_watching(kind) and presence.is_watching(game.pk, user.pk):
        return None
    if not still_true(kind, game, user, email.version):
        return None
    return _context_for(kind, game, user, email.version, email.data)


def notice_subject(kind: str, user: User, context: dict) -> str:
    """The one line that says what the notice is (its email's subject, without the prefix)."""
    with timezone.override(user.zone):
        return " ".join(render_to_string(f"emails/{kind}_subject.txt", context).split())


def game_url(game: Game) -> str:
    return f"{settings.SITE_URL}{reverse('games:game', args=[game.pk])}"


def build_message(
    kind: str, user: User, context: dict, *, message_id: str
) -> EmailMultiAlternatives:
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
    with timezone.override(user.zone):
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
            "Message-ID": message_id,
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
        "time_per_move": duration_words(game.time_per_move),
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
