"""Registration: a player enters (if eligible) or withdraws."""

import secrets

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.history import archive
from games.play.errors import ActionRefused
from games.tournaments import notices, reading
from games.tournaments.actions.changing import bump, changing
from games.tournaments.models import Entry, Tournament


def register(*, tournament_id, user: User, invite_token: str | None = None) -> Entry:
    """Enter the player for a tournament whose registration is open: refused when it has
    started or closed, is full, is by invitation and they are not invited, or they are not
    eligible (its entry limits), or already registered."""
    with changing(tournament_id) as (tournament, caused):
        now = timezone.now()
        if not user.is_active:
            raise ActionRefused(_("This account is closed."), code="not_a_player")
        if tournament.entries.filter(user=user).exists():
            raise ActionRefused(
                _("You are already registered for this tournament."), code="already_registered"
            )
        if not tournament.is_open or now >= tournament.starts_at:
            raise ActionRefused(_("Registration for this tournament has closed."), code="closed")
        if not _invited(tournament, user, invite_token):
            raise ActionRefused(_("This tournament is by invitation only."), code="not_invited")
        if tournament.entries.count() >= tournament.max_players:
            raise ActionRefused(_("This tournament is full."), code="full")
        problem = eligibility_problem(tournament, user, now)
        if problem:
            raise ActionRefused(problem, code="not_eligible")
        entry = Entry.objects.create(tournament=tournament, user=user)
        bump(tournament, caused)
        caused.notify(notices.REGISTERED, [user.pk])
    return entry


def _invited(tournament: Tournament, user: User, token: str | None) -> bool:
    if tournament.access == Tournament.Access.PUBLIC or tournament.created_by_id == user.pk:
        return True
    if token is not None and secrets.compare_digest(
        str(token).encode(), tournament.invite_token.encode()
    ):
        return True
    return tournament.invitations.filter(user=user).exists()


def eligibility_problem(tournament: Tournament, user: User, now=None) -> str:
    """Why the player may not enter under the tournament's entry limits, in words ("" if
    they may): too few rated games, a rating out of range, too many timeouts lately."""
    now = now or timezone.now()
    if (
        tournament.min_rated_games
        or tournament.min_rating is not None
        or (tournament.max_rating is not None)
    ):
        rating = archive.rating_of(user)
        if rating.games < tournament.min_rated_games:
            return ngettext(
                "This tournament is for players with at least %(count)d rated game; you have "
                "%(have)d.",
                "This tournament is for players with at least %(count)d rated games; you have "
                "%(have)d.",
                tournament.min_rated_games,
            ) % {"count": tournament.min_rated_games, "have": rating.games}
        if tournament.min_rating is not None and rating.display < tournament.min_rating:
            return _(
                "This tournament is for players rated %(rating)d or more; you are rated %(have)d."
            ) % {"rating": tournament.min_rating, "have": rating.display}
        if tournament.max_rating is not None and rating.display > tournament.max_rating:
            return _(
                "This tournament is for players rated %(rating)d or less; you are rated %(have)d."
            ) % {"rating": tournament.max_rating, "have": rating.display}
    if tournament.max_timeouts is not None:
        count = reading.timeouts_since(user, now - reading.TIMEOUT_WINDOW)
        if count > tournament.max_timeouts:
            return ngettext(
                "This tournament is for players with at most %(count)d timeout in the last 90 "
                "days; you have %(have)d.",
                "This tournament is for players with at most %(count)d timeouts in the last 90 "
                "days; you have %(have)d.",
                tournament.max_timeouts,
            ) % {"count": tournament.max_timeouts, "have": count}
    return ""


def withdraw(*, tournament_id, user: User) -> Tournament:
    """Leave a tournament. Before its start the entry goes; after, the player is paired no
    more, and their games (those played, and those still going on, which they may play out or
    resign) keep counting for everyone."""
    with changing(tournament_id) as (tournament, caused):
        entry = tournament.entries.filter(user=user).first()
        if entry is None:
            raise ActionRefused(
                _("You are not registered for this tournament."), code="not_registered"
            )
        if tournament.is_over:
            raise ActionRefused(_("This tournament is over."), code="over")
        if tournament.is_open:
            entry.delete()
        elif entry.withdrawn_at is not None:
            raise ActionRefused(_("You have already withdrawn."), code="already_withdrawn")
        else:
            entry.withdrawn_at = timezone.now()
            entry.save(update_fields=["withdrawn_at"])
        bump(tournament, caused)
    return tournament
