"""Every change to a tournament, one function each, in the style of Zulip's zerver/actions (as
games/play/actions.py is for a game).

Each is one transaction that locks the tournament row (`changing`: SELECT ... FOR UPDATE; on
SQLite the IMMEDIATE transaction locks the database), checks the request, writes, bumps the
tournament's version, and collects what it caused (`Caused`): the notices' rows are written in
the transaction (games/tournaments/notices.py), their sends, the tasks and the live pushes leave
after the commit, so nothing is told of a change that rolled back.

A round is made in one of these transactions, whole: its Round row, every game of it (opened,
seated and started through games/play/actions.py, with the tournament's table settings), every
player's Pairing (one a player and round: a database constraint), the tournament's round number.
Two workers that try at once (two beats, a game's end and the sweep) queue on the tournament's
lock; the second finds the round made and does nothing.
"""

import contextlib
import logging
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.effects import Task, send_email
from games.history import archive
from games.models import Game
from games.play import actions as game_actions
from games.play.errors import ActionRefused

from . import notices, reading
from .formats import FormatError, PlacePoints, default_place_points, table_sizes
from .meetings import Meetings
from .models import (
    MAX_ROUNDS,
    PLAYERS_RANGE,
    ROUND_TIME_RANGE,
    SECTION_SIZE_RANGE,
    Entry,
    Invitation,
    Pairing,
    Round,
    Tournament,
)
from .pairing import PairingError, SwissPlayer, pair_round
from .round_robin import schedule_section
from .sections import split_sections
from .seeding import Entrant, seeding_order

logger = logging.getLogger(__name__)

# Tournaments one player may have open or running at once as their organiser.
MAX_ORGANISED = 3
MAX_NAME_LENGTH = 48
# How far ahead a tournament may start; how soon (registration needs some time).
LATEST_START = timedelta(days=90)
EARLIEST_START = timedelta(minutes=10)
# The entrants hear that it starts soon this long before (once).
SOON = timedelta(hours=24)
MAX_INVITATIONS = 200


@dataclass
class Caused:
    """What one change to a tournament caused, sent on after its commit."""

    tournament: Tournament
    tasks: list[Task] = field(default_factory=list)
    changed: bool = False  # its page shows something new: push the new version

    def notify(self, kind: str, user_ids, data: dict | None = None) -> None:
        """Write the notice `kind` for these players (each as their settings allow) in this
        transaction; its rows are sent after the commit."""
        written = notices.write(kind, self.tournament, list(user_ids), data or {})
        self.tasks += [send_email(pk) for pk in written]

    def after_commit(self) -> None:
        if self.changed:
            from . import live

            tournament_id, version = self.tournament.pk, self.tournament.version
            transaction.on_commit(lambda: live.changed(tournament_id, version), robust=True)
        for task in self.tasks:
            transaction.on_commit(task.queue, robust=True)


@contextlib.contextmanager
def changing(tournament_id, *, missing_ok: bool = False) -> Iterator[tuple]:
    """A change of the tournament: a transaction with its row locked, and what it causes."""
    with transaction.atomic():
        tournament = None
        with contextlib.suppress(ValueError, TypeError):
            tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            if not missing_ok:
                raise ActionRefused(_("There is no such tournament."), code="no_such_tournament")
            yield None, None
            return
        caused = Caused(tournament)
        yield tournament, caused
        caused.after_commit()


def _bump(tournament: Tournament, caused: Caused, *fields: str) -> None:
    tournament.version += 1
    tournament.save(update_fields=["version", *fields])
    caused.changed = True


# --- opening ------------------------------------------------------------------------------------


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
        _require_open(tournament)
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


# --- registration -------------------------------------------------------------------------------


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
        _bump(tournament, caused)
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
        _bump(tournament, caused)
    return tournament


# --- the start ----------------------------------------------------------------------------------


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
            _require_open(tournament)
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
        _bump(tournament, caused, "status", "started_at")
        if tournament.is_swiss:
            _pair_next_round(tournament, caused, now)
        else:
            _make_sections(tournament, caused, entries, now)
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
        _require_open(tournament)
        _cancel(tournament, caused, Tournament.Ending.ORGANISER, timezone.now())
    return tournament


def _cancel(tournament: Tournament, caused: Caused, why: str, now) -> None:
    tournament.status = Tournament.Status.CANCELLED
    tournament.ending = why
    tournament.ended_at = now
    _bump(tournament, caused, "status", "ending", "ended_at")
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


# --- the rounds ---------------------------------------------------------------------------------


def game_ended(*, game_id: int) -> str | None:
    """A game of a tournament ended (its end queues this by name: games/effects.py): the
    standings change, and the round or the tournament may be over."""
    tournament_id = (
        Game.objects.filter(pk=game_id)
        .values_list("tournament_round__tournament_id", flat=True)
        .first()
    )
    if tournament_id is None:
        return None
    return advance(tournament_id=tournament_id, changed=True)


def advance(*, tournament_id, changed: bool = False) -> str | None:
    """Move a running tournament on if it is due: the next Swiss round when the current
    round's games have all ended or its deadline has passed; the end when every round is made
    and every game has ended. Return "paired", "finished" or None. Safe to run any number of
    times, at once or late: it decides under the tournament's lock, on the games as they are.
    `changed`: a game ended, so the standings on open pages are redrawn even if nothing else
    moves on."""
    with changing(tournament_id, missing_ok=True) as (tournament, caused):
        if tournament is None or not tournament.is_running:
            return None
        now = timezone.now()
        games = Game.objects.filter(tournament_round__tournament=tournament)
        playing = games.filter(status=Game.Status.PLAYING)
        more_rounds = (
            tournament.is_swiss
            and tournament.round < (tournament.rounds or 0)
            and tournament.ending != Tournament.Ending.NONE_LEFT
        )
        if more_rounds:
            current = Round.objects.filter(tournament=tournament, number=tournament.round).first()
            round_over = not playing.filter(tournament_round__number=tournament.round).exists()
            late = current is not None and current.deadline is not None and current.deadline <= now
            if round_over or late:
                if _pair_next_round(tournament, caused, now):
                    return "paired"
                more_rounds = False
        if not more_rounds and not playing.exists():
            _finish(tournament, caused, now)
            return "finished"
        if changed:
            _bump(tournament, caused)
    return None


def _pair_next_round(tournament: Tournament, caused: Caused, now) -> bool:
    """Pair and make the next Swiss round, whole, in the caller's transaction; False (and no
    more rounds) when fewer than two players are left to pair."""
    read = reading.read(tournament)
    games = read.games
    walked = reading.abandons(games)
    players = [
        SwissPlayer(
            id=row.entry.user_id,
            seed=row.entry.seed,
            points=row.standing.points,
            byes=row.standing.byes,
            withdrawn=row.entry.withdrawn_at is not None,
            abandons=walked[row.entry.user_id],
        )
        for row in read.rows
    ]
    meetings = Meetings(tuple(seat.user_id for seat in game.seats.all()) for game in games)
    try:
        paired = pair_round(players, meetings, tournament.table_size)
    except PairingError:
        tournament.ending = Tournament.Ending.NONE_LEFT
        _bump(tournament, caused, "ending")
        return False
    number = tournament.round + 1
    made = Round.objects.create(
        tournament=tournament,
        number=number,
        started_at=now,
        deadline=now + tournament.round_time,
        repeats=paired.repeats,
        repeat_bound=paired.repeat_bound,
    )
    users = {entry.user_id: entry.user for entry in read.entries}
    pairings = []
    for index, table in enumerate(paired.tables, start=1):
        game = _open_table(
            tournament, made, [users[user_id] for user_id in table], f"{number}.{index}"
        )
        pairings += [
            Pairing(round=made, user_id=user_id, game=game, table=index) for user_id in table
        ]
    if paired.bye is not None:
        pairings.append(Pairing(round=made, user_id=paired.bye))
    Pairing.objects.bulk_create(pairings)
    tournament.round = number
    _bump(tournament, caused, "round")
    caused.notify(notices.ROUND, [p.user_id for p in pairings], {"rounds": [number]})
    return True


def _make_sections(tournament: Tournament, caused: Caused, entries: list[Entry], now) -> None:
    """Every game of every section of a round robin, at once: each section's schedule (its
    rounds are the order the games are listed in; they are all played at the same time)."""
    by_section: dict[int, list[Entry]] = {}
    for entry in sorted(entries, key=lambda e: e.seed):
        by_section.setdefault(entry.section, []).append(entry)
    schedules = {
        section: schedule_section(
            [entry.user_id for entry in members],
            tournament.table_size,
            tournament.rounds,
            seed=tournament.seed % (2**31),
        )
        for section, members in by_section.items()
    }
    count = max(len(schedule.rounds) for schedule in schedules.values())
    users = {entry.user_id: entry.user for entry in entries}
    deadline = now + tournament.round_time
    pairings = []
    for number in range(1, count + 1):
        made = Round.objects.create(
            tournament=tournament, number=number, started_at=now, deadline=deadline
        )
        table_number = 0
        for section in sorted(schedules):
            schedule = schedules[section]
            if number > len(schedule.rounds):
                continue
            letter = chr(ord("A") + section)
            for table in schedule.rounds[number - 1]:
                table_number += 1
                seated = [users[user_id] for user_id in table]
                game = _open_table(tournament, made, seated, f"{letter}{number}.{table_number}")
                pairings += [
                    Pairing(round=made, user_id=user_id, game=game, table=table_number)
                    for user_id in table
                ]
    Pairing.objects.bulk_create(pairings)
    tournament.round = count
    tournament.save(update_fields=["round"])
    caused.notify(
        notices.ROUND,
        sorted({p.user_id for p in pairings}),
        {"rounds": list(range(1, count + 1))},
    )


def _open_table(tournament: Tournament, made: Round, players: list[User], label: str) -> Game:
    """One game of a round, through the games' own changes: opened by its first player with
    the tournament's table settings, the others seated by its invitation link, started by the
    last seat (games/play/actions.py); each a savepoint of the round's transaction."""
    game = game_actions.create_game(
        creator=players[0],
        player_count=len(players),
        name=f"{tournament.name} · {label}",
        access=Game.Access.INVITATION,
        private=False,
        tournament_round=made,
        **tournament.game_settings(),
    )
    for player in players[1:]:
        game = game_actions.join_game(game_id=game.pk, user=player, invite_token=game.invite_token)
    if not game.is_playing:  # a table of one cannot be: table_sizes never makes it
        raise RuntimeError(f"the table {label} of {tournament} did not start")
    return game


def _finish(tournament: Tournament, caused: Caused, now) -> None:
    """The last game ended: the final standings are kept on the entries (the profile lists
    them), and everyone hears their place."""
    read = reading.read(tournament)
    for row in read.rows:
        row.entry.place = row.standing.place
        row.entry.points = str(row.standing.points)
    Entry.objects.bulk_update([row.entry for row in read.rows], ["place", "points"])
    tournament.status = Tournament.Status.FINISHED
    tournament.ended_at = now
    _bump(tournament, caused, "status", "ended_at")
    caused.notify(notices.OVER, [row.entry.user_id for row in read.rows])


def _require_open(tournament: Tournament) -> None:
    if not tournament.is_open:
        raise ActionRefused(_("This tournament has already started or is closed."), code="closed")


def table_sizes_for(tournament: Tournament, players: int) -> tuple[int, ...]:
    """How the players would sit in a Swiss round (the page's preview of the first round)."""
    if players < 2:
        return ()
    return table_sizes(players, tournament.table_size)
