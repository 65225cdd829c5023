"""Every change to a tournament, one function each, in the style of Zulip's zerver/actions (as
games/play/actions/ is for a game).

Each is one transaction that locks the tournament row (`changing`: SELECT ... FOR UPDATE; on
SQLite the IMMEDIATE transaction locks the database), checks the request, writes, bumps the
tournament's version, and collects what it caused (`Caused`): the notices' rows are written in
the transaction (games/tournaments/notices.py), their sends, the tasks and the live pushes leave
after the commit, so nothing is told of a change that rolled back.

A round is made in one of these transactions, whole: its Round row, every game of it (opened,
seated and started through games/play/actions/, with the tournament's table settings), every
player's Pairing (one a player and round: a database constraint), the tournament's round number.
Two workers that try at once (two beats, a game's end and the sweep) queue on the tournament's
lock; the second finds the round made and does nothing.

The changes are kept in modules by purpose, and all of them are named here, so callers write
`from games.tournaments import actions` and `actions.register(...)`: changing.py (the
transaction and what it caused), opening.py, registration.py, starting.py (the start, the
cancel, the "starts soon" notice), rounds.py (the rounds, each made whole, and the end).
"""

from games.play.errors import ActionRefused
from games.tournaments.actions.changing import Caused, changing
from games.tournaments.actions.opening import (
    EARLIEST_START,
    LATEST_START,
    MAX_INVITATIONS,
    MAX_NAME_LENGTH,
    MAX_ORGANISED,
    create_tournament,
    invite,
)
from games.tournaments.actions.registration import eligibility_problem, register, withdraw
from games.tournaments.actions.rounds import advance, game_ended, table_sizes_for
from games.tournaments.actions.starting import SOON, cancel, start, tell_soon

__all__ = [
    "EARLIEST_START",
    "LATEST_START",
    "MAX_INVITATIONS",
    "MAX_NAME_LENGTH",
    "MAX_ORGANISED",
    "SOON",
    "ActionRefused",
    "Caused",
    "advance",
    "cancel",
    "changing",
    "create_tournament",
    "eligibility_problem",
    "game_ended",
    "invite",
    "register",
    "start",
    "table_sizes_for",
    "tell_soon",
    "withdraw",
]
