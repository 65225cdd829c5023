"""A player's vacation: their clock stops in every game they play, up to the days they have.

Starting or ending one is a change of the player's row (locked, with the days charged:
accounts/vacations.py keeps the books), then one change of each game they play: the game is
locked, its running clocks are counted again on the players' calendars as they now are
(games/play/clock.py `recount`: the vacationer's turn, or their finishing time, moves by the
vacation; the others' do not), and a "vacation" or "vacation_ended" event moves the version
on, so that every open page redraws the player's name with "on vacation until ..." (or
without it) and their clock. The player's row first: a move made meanwhile in one of the games
reads the new calendar, and the game's own change after it counts the clocks again anyway.

A vacation ends by itself (the sweep, games/play/clock.py `vacations_over`), when the player
ends it, or when they make a move in any game (games/play/actions/moves.py `play`).
"""

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import vacations as days
from accounts.models import User
from games import rules
from games.live.changes import Change
from games.models import Game, Seat
from games.play import clock
from games.play.applying import changing, record, save_clocks
from games.play.errors import ActionRefused
from games.state_store import load_state

MIN_LENGTH = timedelta(hours=1)
# The User's columns a vacation writes.
VACATION_FIELDS = [
    "vacation_days",
    "vacation_days_at",
    "vacation_started_at",
    "vacation_until",
    "past_vacations",
]


def start_vacation(*, user_id: int, length: timedelta) -> User:
    """Go on vacation now for `length` (at most the days the player has left)."""
    now = timezone.now()
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user_id)
        if user.is_bot:
            raise ActionRefused(_("Computer players take no vacations."), code="bot")
        if days.on_vacation(user, now):
            raise ActionRefused(_("You are on vacation already."), code="on_vacation")
        if user.vacation_until is not None:  # one that ran out, not ended yet by the sweep
            days.end(user, now)
        left = days.days_left(user, now)
        if length < MIN_LENGTH:
            raise ActionRefused(_("A vacation lasts at least an hour."), code="too_short")
        if length > left:
            raise ActionRefused(
                _("You have %(days)s of vacation left.") % {"days": days.days_words(left)},
                code="not_enough_days",
            )
        days.begin(user, now, length)
        user.save(update_fields=VACATION_FIELDS)
    _in_every_game(user, "vacation", actor=user)
    return user


def end_vacation(*, user_id: int, by_itself: bool = False) -> User | None:
    """End the player's vacation now (the player ends it, or makes a move), or `by_itself`
    if it has run out (the sweep); the time taken is charged. Does nothing if there is none
    to end, so the sweep's task may run twice."""
    now = timezone.now()
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None or user.vacation_until is None:
            return None
        if by_itself and user.vacation_until > now:
            return None
        days.end(user, now)
        user.save(update_fields=VACATION_FIELDS)
    _in_every_game(user, "vacation_ended", actor=None if by_itself else user)
    return user


def _in_every_game(user: User, kind: str, *, actor: User | None) -> None:
    game_ids = list(
        Seat.objects.filter(user=user, game__status=Game.Status.PLAYING)
        .order_by("game_id")
        .values_list("game_id", flat=True)
    )
    until = user.vacation_until.isoformat() if user.vacation_until else None
    for game_id in game_ids:
        _in_game(game_id, user.pk, kind, actor, until)


def _in_game(
    game_id: int, user_id: int, kind: str, actor: User | None, until: datetime | None
) -> None:
    """Count the game's clocks again and record the vacation's start or end: one change."""
    with changing(game_id, missing_ok=True) as table:
        if table is None or not table.game.is_playing:
            return
        seat = next((seat for seat in table.seats if seat.user_id == user_id), None)
        if seat is None:
            return
        game = table.game
        forced = game.phase == rules.DRAFTING and (
            load_state(game, table.seats).forced_action() is not None
        )
        clocked = clock.recount(game, table.seats, forced_take_due=forced)
        event = record(game, kind, seat=seat.number, actor=actor, data={"until": until})
        game.save(update_fields=["version", "deadline", "remind_at"])
        save_clocks(table.seats, clocked)
        table.effects.events.append(event)
        drafting = game.phase == rules.DRAFTING and game.current_seat == seat.number
        table.effects.changes.append(
            Change(
                game_id=game.pk,
                version=game.version,
                seats=tuple(sorted({seat.number} | clocked)),
                pool=drafting,  # everyone's status names the drafter and their time
                ended=False,
                kind=kind,
            )
        )
