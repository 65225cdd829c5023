"""The start: the seeding and the first round (Swiss) or every game of every section (round
robin), or the tournament called off (too few players, its organiser); the "starts soon" notice."""

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.play.errors import ActionRefused
from games.tournaments import notices
from games.tournaments.actions import rounds
from games.tournaments.actions.changing import Caused, bump, changing, require_open
from games.tournaments.models import Entry, Tournament
from games.tournaments.sections import split_sections
from games.tournaments.seeding import Entrant, seeding_order

# The entrants hear that it starts soon this long before (once).
SOON = timedelta(hours=24)


def start(*, tournament_id, by: User | None = None) -> Tournament | None:
    """Start the tournament: by its organiser at any time while registration is open, or (by
    None, the sweep) once its start time has come. Too few players cancels it, with a notice to
    those registered. Otherwise the seeding is made, and the first round (Swiss) or every game
    of every section (round robin), in this one transaction. Run twice, the second does
    nothing."""
    with changing(tournament_id, missing_ok=by is None) as (tournament, caused):
        if tournament is None:
            return None
        now = timezone.now()
        if by is not None:
            if tournament.created_by_id != by.pk:
                raise ActionRefused(
                    _("Only the tournament's organiser can start it."), code="not_organiser"
                )
            require_open(tournament)
        elif not tournament.is_open or tournament.starts_at > now:
            return None
        entries = list(tournament.entries.select_related("user").order_by("registered_at", "pk"))
        needed = max(tournament.min_players, 2)
        if len(entries) < needed:
            if by is not None:
                raise ActionRefused(
                    ngettext(
                        "A tournament needs at least %(count)d player to start.",
                        "A tournament needs at least %(count)d players to start.",
                        needed,
                    )
                    % {"count": needed},
                    code="too_few",
                )
            _cancel(tournament, caused, Tournament.Ending.TOO_FEW, now)
            return tournament
        _seed(tournament, entries)
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = now
        bump(tournament, caused, "status", "started_at")
        if tournament.is_swiss:
            rounds.pair_next_round(tournament, caused, now)
        else:
            rounds.make_sections(tournament, caused, entries, now)
    return tournament


def _seed(tournament: Tournament, entries: list[Entry]) -> None:
    """The seeding, from the ratings as they are now (highest first, the unrated last) or the
    tournament's own draw; in a round robin, the sections dealt from it."""
    from games.models import Rating

    shown = dict(
        Rating.objects.filter(user__in=[e.user_id for e in entries]).values_list(
            "user_id", "display"
        )
    )
    by_rating = tournament.seeding == Tournament.Seeding.RATING
    order = seeding_order(
        [Entrant(entry.user_id, shown.get(entry.user_id)) for entry in entries],
        by_rating,
        tournament.seed,
    )
    place = {user_id: index for index, user_id in enumerate(order)}
    section_of: dict[int, int] = {}
    if not tournament.is_swiss:
        for index, members in enumerate(split_sections(order, tournament.section_size)):
            section_of.update(dict.fromkeys(members, index))
    for entry in entries:
        entry.seed = place[entry.user_id]
        entry.rating = shown.get(entry.user_id)
        entry.section = section_of.get(entry.user_id)
    Entry.objects.bulk_update(entries, ["seed", "rating", "section"])


def cancel(*, tournament_id, by: User) -> Tournament:
    """The organiser calls off a tournament that has not started; the entrants are told."""
    with changing(tournament_id) as (tournament, caused):
        if tournament.created_by_id != by.pk:
            raise ActionRefused(
                _("Only the tournament's organiser can cancel it."), code="not_organiser"
            )
        require_open(tournament)
        _cancel(tournament, caused, Tournament.Ending.ORGANISER, timezone.now())
    return tournament


def _cancel(tournament: Tournament, caused: Caused, why: str, now) -> None:
    tournament.status = Tournament.Status.CANCELLED
    tournament.ending = why
    tournament.ended_at = now
    bump(tournament, caused, "status", "ending", "ended_at")
    entrants = tournament.entries.values_list("user_id", flat=True)
    caused.notify(notices.CANCELLED, entrants, {"why": why})


def tell_soon(*, tournament_id) -> bool:
    """Tell the entrants that the tournament starts soon (once; the sweep asks)."""
    with changing(tournament_id, missing_ok=True) as (tournament, caused):
        if tournament is None or not tournament.is_open or tournament.soon_told_at:
            return False
        now = timezone.now()
        if tournament.starts_at - SOON > now:
            return False
        tournament.soon_told_at = now
        tournament.save(update_fields=["soon_told_at"])
        caused.notify(notices.SOON, tournament.entries.values_list("user_id", flat=True))
    return True
