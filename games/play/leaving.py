"""Leaving a game that goes on: resigning, abandonment after timeouts, the vote to expel, and
the end when no person is left playing. The state changes that use these are in
games/play/actions/: ending.py (`resign`, `vote_to_expel`), timeouts.py (`time_out_turn`),
moves.py (`play_stand_in`).

A seat that leaves stays its player's (their history, their rating): the rules mark it left in
the turn it left (`rules.Resign`; docs/rules.md, "Leaving a game"), which ranks it after every
seat that stays, and the server's easy player, the stand-in, makes its moves from then on
through the same rules actions (`actions.play_stand_in`, queued like a computer player's move:
games/bots/turns.py). Why it left is the Seat's `left` and the Resign event's cause:

- *resigned*: the player's own choice (cause "player");
- *abandoned*: their time ran out `Game.abandon_after_row` times in a row or
  `Game.abandon_after_total` times in all (cause "abandoned"); they are told by email;
- *expelled*: after their second timeout in a row the other people at the table may vote, and a
  strict majority of those still playing hands the seat over (cause "expelled").

When nobody but computer players and stand-ins is left playing, the game ends at once
(`rules.Conclude`, cause "all_left"): rated, those who stayed by their score as it stands, the
leavers after them.
"""

from dataclasses import replace

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext as _

from accounts.models import User
from games import rules
from games.live.changes import Change
from games.models import Event, ExpelVote, Seat, electorate, votes_needed
from games.notices.notice import HANDED_OVER, TIMEOUT, Notice
from games.play.applying import Table, apply_action, notify, record, wake_bots
from games.play.errors import ActionRefused

Left = Seat.Left
CAUSE = {
    Left.RESIGNED: Event.Cause.PLAYER,
    Left.ABANDONED: Event.Cause.ABANDONED,
    Left.EXPELLED: Event.Cause.EXPELLED,
}


def hand_over(table: Table, seat: Seat, reason: str, *, actor: User | None = None) -> list[Event]:
    """The seat leaves the game for `reason` (a `Seat.Left`): the rules' Resign, recorded with
    that cause; the stand-in is woken for it, or the game ends if it was the last person
    playing. Return the events. The caller has checked who may do it."""
    game = table.game
    waited = _waits_for(table, seat)
    events = [apply_action(table, seat, rules.Resign(), actor=actor, cause=CAUSE[reason])]
    seat.left, seat.left_version = reason, game.version
    Seat.objects.filter(pk=seat.pk).update(left=reason, left_version=game.version)
    ExpelVote.objects.filter(seat_id=seat.pk).delete()
    # Everyone's status says who left (and the vote is over); the log tells it; the player's
    # count of games waiting for them drops this one.
    change = table.effects.changes[-1]
    waiting = change.waiting_changed + (((seat.user_id, False),) if waited else ())
    table.effects.changes[-1] = replace(change, pool=True, logged=True, waiting_changed=waiting)
    if not game.is_playing:
        return events
    if all(other.left or other.user.is_bot for other in table.seats):
        conclude = rules.Conclude()
        cause = Event.Cause.ALL_LEFT
        events.append(apply_action(table, seat, conclude, actor=None, cause=cause))
    else:
        table.effects.tasks += wake_bots(table, {seat.number})
    return events


def timed_out(table: Table, seat: Seat, what: dict) -> list:
    """Count the timeout just played for the seat's player; hand their seat to the server if
    they have now timed out too often, else tell them. Return the events of a hand-over. A seat
    the stand-in plays is not its player's doing: nothing is counted."""
    if seat.left:
        return []
    count_timeouts([seat])
    game = table.game
    too_many = (
        seat.timeouts_in_row >= game.abandon_after_row or seat.timeouts >= game.abandon_after_total
    )
    if not too_many or seat.user.is_bot:
        notify(table, [Notice(TIMEOUT, game.pk, (seat.user_id,), game.version, what)])
        return []
    events = hand_over(table, seat, Left.ABANDONED)
    told = {"reason": Left.ABANDONED, "in_row": seat.timeouts_in_row, "total": seat.timeouts}
    notify(table, [Notice(HANDED_OVER, game.pk, (seat.user_id,), game.version, told)])
    return events


def count_timeouts(seats: list[Seat]) -> None:
    """One more timeout for each seat, in all and in a row."""
    counted = [seat for seat in seats if not seat.left]
    Seat.objects.filter(pk__in=[seat.pk for seat in counted]).update(
        timeouts=F("timeouts") + 1, timeouts_in_row=F("timeouts_in_row") + 1
    )
    for seat in counted:
        seat.timeouts += 1
        seat.timeouts_in_row += 1


# --- the vote ------------------------------------------------------------------------------------


def vote(table: Table, voter: Seat, target: Seat) -> list:
    """`voter` votes to hand `target`'s seat to the server; with a strict majority of the
    electorate the seat is handed over. Return the events."""
    game = table.game
    name = target.user.username
    if target.pk == voter.pk:
        raise ActionRefused(_("You cannot vote on your own seat."), code="own_seat")
    if not target.may_be_voted_out:
        raise ActionRefused(
            _(
                "There is no vote on %(player)s's seat: it opens after their time has run out "
                "%(times)d times in a row."
            )
            % {"player": name, "times": ExpelVote.AFTER},
            code="no_vote",
        )
    try:
        with transaction.atomic():
            ExpelVote.objects.create(game=game, seat=target, voter_id=voter.user_id)
    except IntegrityError:
        raise ActionRefused(
            _("You have already voted to hand %(player)s's seat to the server.") % {"player": name},
            code="already_voted",
        ) from None
    voters = electorate(table.seats, target)
    votes = ExpelVote.objects.filter(
        seat_id=target.pk, voter_id__in=[s.user_id for s in voters]
    ).count()
    needed = votes_needed(len(voters))
    event = record(
        game,
        "expel_vote",
        seat=voter.number,
        actor=voter.user,
        data={"seat": target.number, "votes": votes, "needed": needed},
    )
    game.save(update_fields=["version"])
    table.effects.events.append(event)
    # Everyone's status shows the count; the log tells the vote.
    table.effects.changes.append(
        Change(game.pk, game.version, (), pool=True, ended=False, kind=event.kind, logged=True)
    )
    if votes < needed:
        return [event]
    events = [event, *hand_over(table, target, Left.EXPELLED)]
    told = {"reason": Left.EXPELLED, "in_row": target.timeouts_in_row, "total": target.timeouts}
    notify(table, [Notice(HANDED_OVER, game.pk, (target.user_id,), game.version, told)])
    return events


def _waits_for(table: Table, seat: Seat) -> bool:
    """Whether the game waits for the seat's move now (`models.waiting_for_move`)."""
    game = table.game
    if game.phase == rules.DRAFTING:
        return game.current_seat == seat.number
    return game.phase == rules.FINISHING and not seat.finished
