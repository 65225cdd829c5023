"""Opening a tournament: its settings checked, and its invitations."""

from datetime import datetime, timedelta
from fractions import Fraction

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.models import Game
from games.play import actions as game_actions
from games.play.errors import ActionRefused
from games.tournaments import notices
from games.tournaments.actions.changing import changing, require_open
from games.tournaments.formats import FormatError, PlacePoints, default_place_points
from games.tournaments.models import (
    MAX_ROUNDS,
    PLAYERS_RANGE,
    ROUND_TIME_RANGE,
    SECTION_SIZE_RANGE,
    Invitation,
    Tournament,
)

# Tournaments one player may have open or running at once as their organiser.
MAX_ORGANISED = 3


MAX_NAME_LENGTH = 48


# How far ahead a tournament may start; how soon (registration needs some time).
LATEST_START = timedelta(days=90)


EARLIEST_START = timedelta(minutes=10)


MAX_INVITATIONS = 200


def create_tournament(
    *,
    organiser: User,
    name: str,
    format: str = Tournament.Format.SWISS,
    table_size: int = 4,
    rounds: int | None = 5,
    section_size: int | None = None,
    starts_at: datetime,
    round_time: timedelta = timedelta(days=21),
    min_players: int = 4,
    max_players: int = 100,
    access: str = Tournament.Access.PUBLIC,
    seeding: str = Tournament.Seeding.RATING,
    place_points: dict | None = None,
    bye_points: str | Fraction | None = None,
    description: str = "",
    min_rated_games: int = 0,
    min_rating: int | None = None,
    max_rating: int | None = None,
    max_timeouts: int | None = None,
    clock: str = Game.Clock.PER_MOVE,
    time_per_move: timedelta | None = timedelta(days=1),
    fischer_bank: timedelta | None = None,
    fischer_increment: timedelta | None = None,
    fischer_cap: timedelta | None = None,
    finishing_time: timedelta | None = None,
    weekends_off: bool = False,
    rated: bool = True,
    strict_finish: bool = False,
) -> Tournament:
    """Open a tournament for registration, `organiser` its organiser (who may take part too,
    by registering). Every setting is checked here, whoever calls (the form, the API, a
    test); a refusal says which and why."""
    name = (name or "").strip()
    now = timezone.now()
    if not organiser.is_active or organiser.is_bot:
        raise ActionRefused(_("Only a player can open a tournament."), code="not_a_player")
    if not name:
        raise ActionRefused(_("Give the tournament a name."), code="bad_name")
    if len(name) > MAX_NAME_LENGTH:
        raise ActionRefused(
            _("A tournament's name has at most %(count)d characters.") % {"count": MAX_NAME_LENGTH},
            code="bad_name",
        )
    if format not in Tournament.Format.values:
        raise ActionRefused(_("Choose Swiss or round-robin sections."), code="bad_format")
    if access not in Tournament.Access.values:
        raise ActionRefused(_("Choose open to anyone or by invitation."), code="bad_access")
    if seeding not in Tournament.Seeding.values:
        raise ActionRefused(_("Choose seeding by rating or by draw."), code="bad_seeding")
    if not isinstance(table_size, int) or not 2 <= table_size <= 5:
        raise ActionRefused(_("A table has 2 to 5 players."), code="bad_table_size")
    if format == Tournament.Format.SWISS:
        if not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
            raise ActionRefused(
                _("A Swiss tournament has 1 to %(most)d rounds.") % {"most": MAX_ROUNDS},
                code="bad_rounds",
            )
        section_size = None
    else:
        low, high = SECTION_SIZE_RANGE
        if not isinstance(section_size, int) or not max(low, table_size) <= section_size <= high:
            raise ActionRefused(
                _("A section has %(low)d to %(high)d players, at least a full table.")
                % {"low": max(low, table_size), "high": high},
                code="bad_section_size",
            )
        if table_size == 2:
            rounds = None  # at 2-player tables everyone meets everyone once
        if rounds is not None and (not isinstance(rounds, int) or not 1 <= rounds <= 2 * high):
            raise ActionRefused(
                _("Each player plays 1 to %(most)d games in their section.") % {"most": 2 * high},
                code="bad_rounds",
            )
    low, high = PLAYERS_RANGE
    if not (isinstance(min_players, int) and isinstance(max_players, int)):
        raise ActionRefused(_("Say how many players, in numbers."), code="bad_players")
    if not low <= min_players <= max_players <= high:
        raise ActionRefused(
            _("From %(low)d to %(high)d players, and the fewest no more than the most.")
            % {"low": low, "high": high},
            code="bad_players",
        )
    if not now + EARLIEST_START <= starts_at <= now + LATEST_START:
        raise ActionRefused(
            _("The start must be between 10 minutes and 90 days from now."), code="bad_start"
        )
    shortest, longest = ROUND_TIME_RANGE
    if not shortest <= round_time <= longest:
        raise ActionRefused(_("A round lasts from 1 to 120 days."), code="bad_round_time")
    if min_rating is not None and max_rating is not None and min_rating > max_rating:
        raise ActionRefused(_("The lowest rating allowed is above the highest."), code="bad_limits")
    if min_rated_games < 0 or (max_timeouts is not None and max_timeouts < 0):
        raise ActionRefused(_("Entry limits cannot be negative."), code="bad_limits")
    points = _checked_points(place_points, bye_points)
    time_control = game_actions.checked_time_control(
        clock=clock,
        time_per_move=time_per_move,
        fischer_bank=fischer_bank,
        fischer_increment=fischer_increment,
        fischer_cap=fischer_cap,
        finishing_time=finishing_time,
    )
    with transaction.atomic():
        # Locked, so two tournaments opened at once both count.
        User.objects.select_for_update().filter(pk=organiser.pk).first()
        organised = Tournament.objects.filter(
            created_by=organiser,
            status__in=[Tournament.Status.OPEN, Tournament.Status.RUNNING],
        ).count()
        if organised >= MAX_ORGANISED:
            raise ActionRefused(
                ngettext(
                    "You already organise %(count)d tournament that has not ended: at most "
                    "%(count)d at once.",
                    "You already organise %(count)d tournaments that have not ended: at most "
                    "%(count)d at once.",
                    MAX_ORGANISED,
                )
                % {"count": MAX_ORGANISED},
                code="too_many_tournaments",
            )
        tournament = Tournament.objects.create(
            name=name,
            description=(description or "").strip()[:1000],
            created_by=organiser,
            format=format,
            access=access,
            table_size=table_size,
            rounds=rounds,
            section_size=section_size,
            place_points=points["place_points"],
            bye_points=points["bye_points"],
            seeding=seeding,
            min_players=min_players,
            max_players=max_players,
            starts_at=starts_at,
            round_time=round_time,
            min_rated_games=min_rated_games,
            min_rating=min_rating,
            max_rating=max_rating,
            max_timeouts=max_timeouts,
            weekends_off=bool(weekends_off),
            rated=bool(rated),
            strict_finish=bool(strict_finish),
            **{
                key: value
                for key, value in time_control.items()
                if key in {"clock", "time_per_move", "fischer_bank", "fischer_increment",
                           "fischer_cap", "finishing_time"}
            },
        )  # fmt: skip
    return tournament


def _checked_points(place_points: dict | None, bye_points) -> dict:
    """The organiser's points per place (by table size; missing sizes keep the defaults) and
    the bye's, checked by the pure formats, as the row keeps them (fractions in words)."""
    try:
        chosen = {
            int(size): tuple(Fraction(str(value)) for value in row)
            for size, row in (place_points or {}).items()
        }
        points = PlacePoints(chosen)
        bye = Fraction(str(bye_points)) if bye_points not in (None, "") else None
    except (FormatError, ValueError, TypeError, ZeroDivisionError) as error:
        raise ActionRefused(
            _("Points per place: %(problem)s.") % {"problem": str(error) or _("not numbers")},
            code="bad_points",
        ) from None
    if bye is not None and bye < 0:
        raise ActionRefused(_("A bye cannot be worth negative points."), code="bad_points")
    stored = {
        str(size): [str(value) for value in points.row(size)]
        for size in points.by_size
        if points.row(size) != default_place_points(size)
    }
    return {"place_points": stored, "bye_points": str(bye) if bye is not None else ""}


def invite(*, tournament_id, by: User, username: str) -> Invitation:
    """The organiser invites a player by name to a tournament by invitation that has not
    started (an open one needs no invitation)."""
    with changing(tournament_id) as (tournament, caused):
        if tournament.created_by_id != by.pk:
            raise ActionRefused(
                _("Only the tournament's organiser can invite."), code="not_organiser"
            )
        require_open(tournament)
        invitee = User.objects.named((username or "").strip()).filter(is_active=True).first()
        if invitee is None:
            raise ActionRefused(
                _("There is no player called “%(name)s”.") % {"name": username},
                code="no_such_player",
            )
        if tournament.invitations.filter(user=invitee).exists():
            raise ActionRefused(
                _("%(player)s is already invited.") % {"player": invitee.username},
                code="already_invited",
            )
        if tournament.invitations.count() >= MAX_INVITATIONS:
            raise ActionRefused(
                _("At most %(count)d invitations a tournament.") % {"count": MAX_INVITATIONS},
                code="too_many_invitations",
            )
        invitation = Invitation.objects.create(tournament=tournament, user=invitee, invited_by=by)
        caused.notify(notices.INVITED, [invitee.pk])
    return invitation
