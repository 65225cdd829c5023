"""The clock: what the server does when time runs out (games/tasks.py, the sweep): the overdue
turn played, the finishing boards submitted at their deadline, the reminders sent."""

from django.utils import timezone

from accounts import vacations as vacation_days
from games import rules
from games.models import Event, Game, Seat
from games.notices.notice import REMINDER, Notice
from games.play import clock, leaving
from games.play.actions.common import Played, played
from games.play.applying import Table, apply_action, changing, notify, save_clocks
from games.rules import ConfirmDraft
from games.state_store import load_state


def time_out_turn(*, game_id: int, expected_version: int | None) -> Played | None:
    """Play the overdue turn for its player: the forced take if one is due (not a timeout),
    otherwise confirm their pending draft or draft a sensible tile for them
    (`rules.timeout_action`), record the events as caused by the timeout and count it on their
    seat.

    Does nothing unless the game is drafting, its deadline has passed, and (when given) its
    version is still `expected_version`: running late, twice, or after the player moved is safe.
    A player on vacation is not timed out: their clock is counted again (a vacation that began
    while the sweep found the turn), unless it ran out before the vacation began. A forced
    take is the server's move, made for them all the same.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None or not _overdue(table.game, rules.DRAFTING, expected_version):
            return None
        game, seats = table.game, table.seats
        seat = seats[game.current_seat]
        state = load_state(game, seats)
        forced = state.forced_action()
        if forced is not None:
            event = apply_action(table, seat, forced, actor=None, cause=Event.Cause.FORCED_TAKE)
            return played(table, seat, [event])
        if _recounted_for_vacations(table, [seat]) and table.game.deadline > timezone.now():
            return None
        events = []
        if state.pending is None:  # a draft chosen for them (rules.timeout_action), confirmed
            # The rules' one timeout pick (with nothing forced nor pending: a draft).
            draft = rules.timeout_action(state, seat.number)
            assert isinstance(draft, rules.Draft), draft
            what = {"tile": draft.tile_id, "confirmed": False}
            events.append(apply_action(table, seat, draft, actor=None, cause=Event.Cause.TIMEOUT))
        else:  # their own pending draft, confirmed for them
            what = {"tile": state.pending.tile_id, "confirmed": True}
        confirm = ConfirmDraft()
        events.append(apply_action(table, seat, confirm, actor=None, cause=Event.Cause.TIMEOUT))
        # Counted, and told; too many, and the seat is handed to the server.
        events += leaving.timed_out(table, seat, what)
    return played(table, seat, events)


def finish_at_deadline(*, game_id: int, expected_version: int | None) -> Played | None:
    """Submit the boards whose finishing time has run out (each player has their own: weekends
    and vacations differ) as they are, their illegal tiles first returned to the tray
    (`rules.auto_finish_actions`), and count the timeout on those seats. When the last board is
    in, the game ends with its results.

    Does nothing unless the game is finishing, its (earliest) deadline has passed, and (when
    given) its version is still `expected_version`.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None or not _overdue(table.game, rules.FINISHING, expected_version):
            return None
        late = clock.late_seats(table.game, table.seats, timezone.now())
        if _recounted_for_vacations(table, late):
            late = clock.late_seats(table.game, table.seats, timezone.now())
        if not late:
            return None
        events = []
        for seat in late:
            state = load_state(table.game, table.seats)
            for action in rules.auto_finish_actions(state, seat.number):
                cause = Event.Cause.DEADLINE
                events.append(apply_action(table, seat, action, actor=None, cause=cause))
        leaving.count_timeouts(late)
    # The game-over email tells each late player what happened to their board.
    return played(table, None, events)


def remind_players(*, game_id: int) -> list[int]:
    """Send the turn's reminder if it is due, once: to the player whose move it is, or in the
    finishing phase to everyone not finished whose own reminder is due. Return the ids of the
    users reminded.

    Not a move: no event is recorded and the version stays, so nobody's page goes stale.
    """
    with changing(game_id, missing_ok=True) as table:
        if table is None:
            return []
        game = table.game
        set_for = game.remind_at if game.is_playing else None
        now = timezone.now()
        if set_for is None or set_for > now:
            return []
        reminded = clock.remind_seats(game, table.seats, now)
        game.save(update_fields=["deadline", "remind_at"])
        if game.phase == rules.FINISHING:
            save_clocks(table.seats, {seat.number for seat in reminded})
        user_ids = [seat.user_id for seat in reminded if not seat.left]
        if user_ids:
            notify(table, [Notice(REMINDER, game.pk, tuple(user_ids), game.pool_version)])
    return user_ids


def _overdue(game: Game, phase: str, expected_version: int | None) -> bool:
    """Return whether the game is in `phase` past its deadline, at the expected version."""
    if expected_version is not None and game.version != expected_version:
        return False
    return (
        game.is_playing
        and game.phase == phase
        and game.deadline is not None
        and game.deadline <= timezone.now()
    )


def _recounted_for_vacations(table: Table, seats: list[Seat]) -> bool:
    """If any of `seats` (whose time the clock says has run out) is on vacation, count the
    game's clocks again and save them, and return True: a vacation that began just as the sweep
    found the turn, whose own change has not reached this game yet (it redraws the pages). A
    time that ran out before the vacation began stays run out."""
    now = timezone.now()
    if not any(vacation_days.on_vacation(seat.user, now) for seat in seats):
        return False
    game = table.game
    clocked = clock.recount(game, table.seats, forced_take_due=False)
    game.save(update_fields=["deadline", "remind_at"])
    save_clocks(table.seats, clocked)
    return True
