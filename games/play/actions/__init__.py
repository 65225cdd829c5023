"""Every change to a game, one function each, in the style of Zulip's zerver/actions.

Each is one transaction that locks the game row (games/play/applying.py `changing`), checks the
request with the rules package and against the version the player saw, writes the rows,
appends the events, and says what it caused; games/effects.py sends that on after the commit,
so nothing is pushed or queued for a change that rolled back. The site's pages, the Celery
tasks, the computer players and the tests call these functions, and nothing else writes a game.

A player's move is one function, `play`, whatever the action: the rules action (or its JSON
form) says what it is, as the pages and the computer players send it.

The changes are kept in modules by purpose, and all of them are named here, so callers write
`from games.play import actions` and `actions.play(...)`:

- tables.py: a table's life before its game (create, invite, join, leave, decline, cancel,
  start); time_controls.py: its time control and timeouts, checked;
- moves.py: the moves (`play`, the forced take, the stand-in's, the queued draft);
- timeouts.py: what the server does when time runs out (the overdue turn, the finishing
  deadline, the reminders);
- ending.py: resigning, the vote to expel, the post-game analysis;
- common.py: what they share (`Played`, the checks of a game in play).
"""

from games.play.actions.common import Played
from games.play.actions.ending import record_analysis, resign, vote_to_expel
from games.play.actions.moves import (
    NOT_POSTED,
    POSTED_TYPES,
    Queued,
    play,
    play_stand_in,
    queue_drafts,
    take_last_tile,
)
from games.play.actions.tables import (
    MAX_NAME_LENGTH,
    SEAT_NOT_OFFERED,
    cancel_game,
    create_game,
    decline_invitation,
    invite_player,
    join_game,
    leave_game,
    start_game,
)
from games.play.actions.time_controls import checked_time_control
from games.play.actions.timeouts import finish_at_deadline, remind_players, time_out_turn

__all__ = [
    "MAX_NAME_LENGTH",
    "NOT_POSTED",
    "POSTED_TYPES",
    "SEAT_NOT_OFFERED",
    "Played",
    "Queued",
    "cancel_game",
    "checked_time_control",
    "create_game",
    "decline_invitation",
    "finish_at_deadline",
    "invite_player",
    "join_game",
    "leave_game",
    "play",
    "play_stand_in",
    "queue_drafts",
    "record_analysis",
    "remind_players",
    "resign",
    "start_game",
    "take_last_tile",
    "time_out_turn",
    "vote_to_expel",
]
