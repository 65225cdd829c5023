"""The emails about games: whether one is still due when its turn to be sent comes, and what
it says.

Each email is plain text and HTML from templates/emails/, speaks the recipient's own language
(accounts.User.language; without one, the site's: never the sender's, nor that of the request
that caused it) and shows times in their own time zone, and carries a signed unsubscribe link and
the List-Unsubscribe headers (RFC 8058 one-click). A Web Push's words follow the same language.
"""

from contextlib import contextmanager

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import ngettext, pgettext

from accounts.models import User
from accounts.unsubscribe import unsubscribe_url
from games import chat, presence, rules
from games.models import Event, Game, Invitation, Seat
from games.move_log import read_log, summary_parts, tile_words
from games.notices.notice import (
    FINISH,
    GAME_OVER,
    GAME_STARTED,
    HANDED_OVER,
    INVITATION,
    TIMEOUT,
    TOPIC,
    WATCHED,
    YOUR_TURN,
    held_while_watching,
    seen_since,
    still_true,
    wanted,
)
from infra.models import OutboxEmail
from infra.words import place_words


def language_of(user: User | None) -> str:
    """The language of what is sent to `user`: the one they chose (accounts.User.language),
    else the site's (settings.LANGUAGE_CODE): a browser's language is not known to a task."""
    chosen = getattr(user, "language", "") or ""
    return chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


@contextmanager
def as_recipient(user: User | None):
    """Words, dates and times as `user` reads them: their language and their time zone."""
    with translation.override(language_of(user)):
        if user is None:
            yield
            return
        with timezone.override(user.zone):
            yield


def notice_message(email: OutboxEmail) -> EmailMultiAlternatives | None:
    """The email of an outbox row made from a notice, if it is still due now: its recipient
    still wants it, is not watching the game, and what it says is still true; else None.
    What it says (the moves since, the places) is put in words in the recipient's language."""
    with as_recipient(email.user):
        context = notice_context(email)
        if context is None:
            return None
        return build_message(email.kind, email.user, context, message_id=email.message_id)


def notice_context(email: OutboxEmail) -> dict | None:
    """What an outbox row made from a notice says (its email's context), if it is still due
    now, whichever its channel (an email, or a Web Push: games/notices/webpush.py); else None."""
    user, kind = email.user, email.kind
    game = Game.objects.filter(pk=email.game_id).first() if email.game_id else None
    if user is None or game is None or not wanted(user, kind, email.data):
        return None
    if held_while_watching(kind) and presence.is_watching(game.pk, user.pk):
        return None
    if email.data.get(WATCHED) and seen_since(game.seats.filter(user=user).first(), email.version):
        return None  # written while they watched, and their page has shown it since
    if not still_true(kind, game, user, email.version):
        return None
    return _context_for(kind, game, user, email.version, email.data)


def notice_subject(kind: str, user: User, context: dict) -> str:
    """The one line that says what the notice is (its email's subject, without the prefix)."""
    with as_recipient(user):
        return " ".join(render_to_string(f"emails/{kind}_subject.txt", context).split())


def deadline_format() -> str:
    """How an email writes a deadline (Django's `date` format), in the active language."""
    # Translators: how an email writes a deadline, in the letters of Django's date format
    # (docs.djangoproject.com/en/5.2/ref/templates/builtins/#date): "Thursday 5 December, 14:00
    # CET". The names of the day and the month are translated by Django.
    return pgettext("date format of a deadline in an email", "l j F, H:i T")


def game_url(game_id: int) -> str:
    return f"{settings.SITE_URL}{reverse('games:game', args=[game_id])}"


def build_message(
    kind: str, user: User, context: dict, *, message_id: str, topic: str | None = None
) -> EmailMultiAlternatives:
    """Return the email of `kind` for `user`: subject, text and HTML from templates/emails/.
    Its unsubscribe link turns off `topic` (accounts/unsubscribe.py; by default the kind's)."""
    unsubscribe = unsubscribe_url(user, topic or TOPIC.get(kind, kind))
    context = {
        **context,
        "site_name": settings.SITE_NAME,
        "site_url": settings.SITE_URL,
        "recipient": user,
        "unsubscribe_url": unsubscribe,
        "unsubscribe_all_url": unsubscribe_url(user, "all"),
        "settings_url": f"{settings.SITE_URL}{reverse('accounts:settings')}",
    }
    # Every word of the email is in the recipient's language, every time in their time zone.
    with as_recipient(user):
        context["deadline_format"] = deadline_format()
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


# What a "your move" email tells of the game since the player's own last move, at most this
# many lines (each player's drafts make one).
NEWS = {
    "draft", "queued", "forced_take", "timeout", "finish", "deadline",
    "resigned", "abandoned", "expelled", "expel_vote",
}  # fmt: skip
MAX_NEWS_LINES = 8


def since_last_move(game: Game, seats: list[Seat], seat: Seat, version: int):
    """The lines of what happened in the game after the player's own last move (their draft or
    finish) up to `version`, in words for them ("you"): the others' drafts, forced takes and
    timeouts, theirs included. Also whether they had moved at all (else: since the start)."""
    log = read_log(game, seats)
    own = [
        entry.number
        for entry in log.entries
        if entry.seat == seat.number
        and entry.kind in ("draft", "finish")
        and entry.number <= version
    ]
    news = [
        entry
        for entry in log.since(own[-1] if own else 0, besides=seat.number)
        if entry.number <= version and entry.kind in NEWS
    ]
    lines = summary_parts(news, seat.number)
    if len(lines) > MAX_NEWS_LINES:
        more = len(lines) - MAX_NEWS_LINES + 1
        rest = ngettext(
            "and %(count)d more: the game's move log has them all",
            "and %(count)d more: the game's move log has them all",
            more,
        ) % {"count": more}
        lines = [*lines[: MAX_NEWS_LINES - 1], rest]
    return lines, bool(own)


def _context_for(kind: str, game: Game, user: User, version: int, data: dict) -> dict | None:
    seats = list(game.seats.select_related("user").order_by("number"))
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    context = {
        "game": game,
        "game_url": game_url(game.pk),
        "seats": seats,
        "seat": mine,
        "opponents": [seat.user.username for seat in seats if seat.user_id != user.pk],
        "players": ", ".join(seat.user.username for seat in seats),  # in seat order
        # Their own clock's (in the finishing phase each player has their own).
        "deadline": mine.clock_deadline if mine is not None else game.deadline,
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
    elif kind in (YOUR_TURN, FINISH) and mine is not None:
        context["since"], context["moved_before"] = since_last_move(game, seats, mine, version)
        context["unread_chat"] = chat.unread_for_seat(mine)  # counted, never quoted
        if "queued" in data:  # their queued draft (games/play/applying.py `_draft_ahead`)
            context["queued"] = True
            context["queued_tile"] = (
                tile_words(data["queued"]) if data["queued"] is not None else ""
            )
            context["queued_column"] = (data.get("column") or 0) + 1
    elif kind == TIMEOUT:
        tile = data.get("tile")
        context["tile"] = rules.TILES[tile] if tile is not None else None
        context["tile_name"] = tile_words(tile) if tile is not None else ""  # "red cross"
        context["confirmed"] = bool(data.get("confirmed"))
        context["timeouts"] = mine.timeouts if mine else 0
        context["in_row"] = mine.timeouts_in_row if mine else 0
        # How close they are to the server taking their seat (games/play/leaving.py).
        context["row_left"] = max(game.abandon_after_row - context["in_row"], 0)
        context["total_left"] = max(game.abandon_after_total - context["timeouts"], 0)
    elif kind == HANDED_OVER:
        context["reason"] = data.get("reason", "")
        context["in_row"], context["total"] = data.get("in_row", 0), data.get("total", 0)
        context["staying"] = game.is_playing
    elif kind == GAME_OVER:
        if mine is None or mine.place is None:
            return None
        places = [seat.place for seat in seats]
        context["place"] = place_words(mine.place, places)
        context["standings"] = [
            {"place": place_words(seat.place, places), "seat": seat}
            for seat in sorted(seats, key=lambda seat: (seat.place, seat.number))
        ]
        context["replay_url"] = f"{settings.SITE_URL}{reverse('games:replay', args=[game.pk])}"
        # Whether their finishing time ran out (the board was submitted for them).
        context["late"] = game.events.filter(seat=mine.number, cause=Event.Cause.DEADLINE).exists()
    return context
