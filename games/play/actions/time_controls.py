"""A new table's time control and its patience with timeouts, checked as `create_game` takes
them (and a tournament's settings for its tables when it is opened)."""

from datetime import timedelta

from django.utils.translation import gettext as _

from games import models
from games.models import ABANDON_ROW_RANGE, ABANDON_TOTAL_RANGE, Game
from games.play.errors import ActionRefused


def checked_time_control(
    *,
    clock: str,
    time_per_move: timedelta | None,
    fischer_bank: timedelta | None,
    fischer_increment: timedelta | None,
    fischer_cap: timedelta | None,
    finishing_time: timedelta | None,
) -> dict:
    """The time control's fields of a new table, checked as `create_game` checks them (a
    tournament's settings for its tables are checked when it is opened)."""
    return time_control_of(
        clock, time_per_move, fischer_bank, fischer_increment, fischer_cap, finishing_time
    )


def time_control_of(
    clock_kind: str,
    per_move: timedelta | None,
    bank: timedelta | None,
    increment: timedelta | None,
    cap: timedelta | None,
    finishing: timedelta | None,
) -> dict:
    """The time control's fields of a new game, checked (games/models/game.py has the ranges)."""
    if finishing is not None and not (
        models.MIN_FINISHING_TIME <= finishing <= models.MAX_FINISHING_TIME
    ):
        raise ActionRefused(
            _("The finishing time must be from 1 hour to 14 days."), code="bad_time"
        )
    if clock_kind == Game.Clock.FISCHER:
        if bank is None or increment is None or cap is None:
            raise ActionRefused(
                _("A Fischer clock needs a starting bank, an increment and a cap."), code="bad_time"
            )
        if not models.MIN_FISCHER_BANK <= bank <= cap <= models.MAX_FISCHER_BANK:
            raise ActionRefused(
                _(
                    "A Fischer bank starts at 1 hour or more and at most at its cap, and the cap "
                    "is at most 30 days."
                ),
                code="bad_time",
            )
        if not models.MIN_FISCHER_INCREMENT <= increment <= models.MAX_FISCHER_INCREMENT:
            raise ActionRefused(_("The increment must be from 1 hour to 7 days."), code="bad_time")
        if increment > cap:
            raise ActionRefused(_("The increment cannot be more than the cap."), code="bad_time")
        return {
            "clock": clock_kind,
            "time_per_move": increment,  # what a draft gives (the emails' "per move")
            "fischer_bank": bank,
            "fischer_increment": increment,
            "fischer_cap": cap,
            "finishing_time": finishing,
        }
    if clock_kind != Game.Clock.PER_MOVE:
        raise ActionRefused(_("Choose a time per move or a Fischer clock."), code="bad_time")
    if per_move is None or not models.MIN_TIME_PER_MOVE <= per_move <= models.MAX_TIME_PER_MOVE:
        raise ActionRefused(_("The time per move must be from 1 hour to 14 days."), code="bad_time")
    return {"clock": clock_kind, "time_per_move": per_move, "finishing_time": finishing}


def check_abandonment(in_row: object, in_all: object) -> None:
    (low_row, high_row), (low_all, high_all) = ABANDON_ROW_RANGE, ABANDON_TOTAL_RANGE
    if not (isinstance(in_row, int) and low_row <= in_row <= high_row):
        raise ActionRefused(
            _("Timeouts in a row before the server takes a seat: %(low)d to %(high)d.")
            % {"low": low_row, "high": high_row},
            code="bad_abandonment",
        )
    if not (isinstance(in_all, int) and low_all <= in_all <= high_all):
        raise ActionRefused(
            _("Timeouts in all before the server takes a seat: %(low)d to %(high)d.")
            % {"low": low_all, "high": high_all},
            code="bad_abandonment",
        )
    if in_all < in_row:
        raise ActionRefused(
            _(
                "Timeouts in all before the server takes a seat must be at least as many as in "
                "a row."
            ),
            code="bad_abandonment",
        )
