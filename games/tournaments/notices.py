"""The tournaments' notices: rows of the site's outbox (infra/outbox.py), written in the
transaction of the change that caused them (games/tournaments/actions/), sent by its task.

Kinds: invited, registered, starts soon, a new round (your table, your opponents: every game of
a round robin's section at once), over (your place), cancelled. Each goes to a player whose
setting `email_tournaments` is on (its unsubscribe link turns it off), in their language and
time zone, like every notice of the games (games/notices/emails.py builds the message).
Nothing is said twice: a row's key is the tournament, the kind, the player and the round.
"""

from django.conf import settings
from django.urls import reverse

from accounts.models import User
from games.models import Game
from games.notices.emails import as_recipient, build_message
from infra import outbox
from infra.models import OutboxEmail
from infra.words import and_list, ordinal, shared_place

INVITED = "t_invited"
REGISTERED = "t_registered"
SOON = "t_soon"
ROUND = "t_round"
OVER = "t_over"
CANCELLED = "t_cancelled"
KINDS = (INVITED, REGISTERED, SOON, ROUND, OVER, CANCELLED)
TOPIC = "tournaments"  # accounts/unsubscribe.py


def register() -> None:
    """Tell the outbox how a tournament's row becomes its email (the app's `ready`)."""
    outbox.register(KINDS, email=message)


def wanted(user: User) -> bool:
    return bool(user.is_active and user.email and not user.is_bot and user.email_tournaments)


def write(kind: str, tournament, user_ids: list[int], data: dict) -> list[int]:
    """A row for each of these players who wants it, once (a repeat of the same notice is not
    written); return the new rows' ids, to send after the commit."""
    users = User.objects.filter(pk__in=user_ids)
    step = "-".join(str(number) for number in data.get("rounds", ()))
    rows = []
    for user in users:
        if not wanted(user):
            continue
        rows.append(
            OutboxEmail(
                kind=kind,
                user=user,
                data={"tournament": tournament.pk, **data},
                key=f"t{tournament.pk}:{kind}:{user.pk}:{step}"[:100],
                message_id=outbox.new_message_id(),
            )
        )
    if not rows:
        return []
    keys = [row.key for row in rows]
    taken = set(OutboxEmail.objects.filter(key__in=keys).values_list("key", flat=True))
    rows = [row for row in rows if row.key not in taken]
    OutboxEmail.objects.bulk_create(rows)
    return [row.pk for row in rows]


def tournament_url(tournament) -> str:
    path = reverse("tournaments:detail", args=[tournament.pk])
    return f"{settings.SITE_URL}{path}"


def message(row: OutboxEmail):
    """The email of a tournament's row, or None when it is no longer due (the player turned
    these off, or the tournament is gone)."""
    from .models import Tournament

    user = row.user
    tournament = Tournament.objects.filter(pk=row.data.get("tournament")).first()
    if user is None or tournament is None or not wanted(user):
        return None
    with as_recipient(user):
        context = _context(row.kind, tournament, user, row.data)
        if context is None:
            return None
        return build_message(row.kind, user, context, message_id=row.message_id, topic=TOPIC)


def _context(kind: str, tournament, user: User, data: dict) -> dict | None:
    from . import reading
    from .models import Pairing

    context = {
        "tournament": tournament,
        "tournament_url": tournament_url(tournament),
        "starts_at": tournament.starts_at,
    }
    if kind == ROUND:
        pairings = (
            Pairing.objects.filter(
                round__tournament=tournament, round__number__in=data.get("rounds", ()), user=user
            )
            .select_related("round", "game")
            .order_by("round__number")
        )
        tables = []
        for pairing in pairings:
            if pairing.game is None:
                tables.append({"round": pairing.round.number, "bye": True})
                continue
            seats = list(pairing.game.seats.select_related("user").order_by("number"))
            tables.append(
                {
                    "round": pairing.round.number,
                    "table": pairing.table,
                    "bye": False,
                    "opponents": and_list(s.user.username for s in seats if s.user_id != user.pk),
                    "first": seats[0].user_id == user.pk,
                    "url": f"{settings.SITE_URL}{reverse('games:game', args=[pairing.game_id])}",
                    "playing": pairing.game.status == Game.Status.PLAYING,
                }
            )
        if not tables:
            return None
        context["tables"] = tables
        context["deadline"] = pairings[0].round.deadline if tournament.is_swiss else None
        context["swiss"] = tournament.is_swiss
    elif kind == OVER:
        entry = tournament.entries.filter(user=user).first()
        if entry is None or entry.place is None:
            return None
        shared = tournament.entries.filter(place=entry.place).count() > 1
        context["place"] = shared_place(entry.place) if shared else ordinal(entry.place)
        context["points"] = reading.points_words(entry.points_value)
        context["players"] = tournament.entries.count()
    elif kind == CANCELLED:
        context["why"] = tournament.get_ending_display()
    elif kind == INVITED:
        context["organiser"] = tournament.created_by.username
    return context
