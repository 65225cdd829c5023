"""The move log: what happened in a game, in the players' words, from its event log.

One fold of the log (games/rules/replay.py `Fold`, the fold every reader of the past uses) gives
the state before each rules event, which says what the event meant: which tile a confirmed draft
took and from which column, whose turn it was, which tile the server took. Each `Entry` is one
thing a player would want to know: a draft, a forced take, a timeout, a finish or a deadline, a
player joining or leaving, the start and the end. Arranging a board is not news and is left out;
a draft put back (undo) never happened.

The same entries make the game page's move log, its "since your last visit" summary, the
highlights of what others took, the page's notices of what happened to the player, and the
"your move" email's summary. `Log` keeps a game's fold, and extends it with new events, so that
a live page's log costs only the new events.

An entry keeps no words, only what happened and who did it: it is made once and read by many
people, each in their own language, so `Entry.text` says it in the language active when it is
read (one whole message per sentence, the reader's own "you" apart from the others' names; the
tiles by their translated names, games/rules/tiles.py; names as their players wrote them).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.utils.translation import gettext, ngettext, pgettext

from games import rules
from games.models import Event
from games.rules.replay import Fold, turn_number
from infra.lru import LRU
from infra.selects import Columns, Select, table_name
from infra.words import and_list

Cause = Event.Cause

# Events that tell nobody anything (arranging) or that are told with another (a draft, with its
# confirmation; the tiles a deadline returned, with its finish), or elsewhere (a vacation: by the
# player's name while it lasts).
QUIET = {
    "draft", "undo_draft", "place", "rotate", "move", "swap", "return", "clear", "undo", "redo",
    "invited", "vacation", "vacation_ended",
}  # fmt: skip


def tile_words(tile_id: int) -> str:
    """A tile as players say it, in the active language: "red cross" (its whole name, marked
    for translation in games/rules/tiles.py, so that a language may agree colour and kind)."""
    return rules.tile_name(tile_id).say(gettext, ngettext)


@dataclass(frozen=True)
class Entry:
    """One thing that happened, for the move log; its words depend on who reads them."""

    number: int  # the game's version after it
    kind: str  # what happened: "draft", "forced_take", "timeout", "finish", "deadline", ...
    when: datetime
    turn: int | None = None  # the draft it belongs to (LOBBY before the start, None finishing)
    seat: int | None = None  # whose it is
    name: str = ""  # their name
    tile: int | None = None
    column: int | None = None  # 0-based; players count from 1
    returned: int = 0  # tiles a deadline returned to the tray
    confirmed: bool = False  # a timeout confirmed the player's own pending draft
    extra: str = ""  # a name in the lobby's entries (who drafts first)
    stand_in: bool = False  # the server's move for a player who left the game
    # A vote to hand a seat to the server: that seat and its player, the votes and the needed.
    target: int | None = None
    target_name: str = ""
    votes: tuple[int, int] = (0, 0)

    def concerns(self, seat: int | None) -> bool:
        """Whether this happened to `seat` without their doing it: a forced take, a timeout, a
        deadline, a draft their queue made (what their page's notices and their "your move"
        summary tell them)."""
        return seat is not None and self.seat == seat and self.kind in SERVERS_WORK

    def alarms(self, seat: int | None) -> bool:
        """Whether this happened to `seat` and is worth a notice on their page until they
        dismiss it (`ALARMS`)."""
        return self.concerns(seat) and self.kind in ALARMS

    def text(self, reader: int | None = None) -> str:
        """The entry in words for the player at seat `reader` ("you"), or for anyone, in the
        active language: the entry keeps no words of its own (it is made once, and read by
        many people in theirs), so it is put in words when it is read. Each is one whole
        message with named placeholders, the reader's own apart from anyone's; names are
        never translated."""
        message, words = self._message(reader)
        return message % words if words else message

    def sentence(self, reader: int | None = None) -> str:
        """`text` as a sentence, its first letter a capital ("You took...", "Tomaste...",
        "The server...") unless it begins with a player's name, written as they wrote it
        ("brian took..."): whether it does is the translated message's own business."""
        message, words = self._message(reader)
        text = message % words if words else message
        return text if message.startswith(NAMES_FIRST) else text[:1].upper() + text[1:]

    def _message(self, reader: int | None) -> tuple[str, dict[str, object]]:
        """The entry's message in the active language, and the words for its placeholders
        (none if it has none: a message without placeholders is not formatted, so that its
        translation may write a bare %)."""
        you = reader is not None and self.seat == reader
        words: dict[str, object] = {"player": self.name}
        if self.tile is not None:
            words["tile"] = tile_words(self.tile)
        if self.column is not None:
            words["column"] = self.column + 1
        if self.stand_in:
            message = self._stand_in_text(you, words)
        elif self.kind in ("draft", "queued", "forced_take", "timeout"):
            message = self._draft_text(you, words)
        elif self.kind in ("finish", "deadline"):
            message = self._finish_text(you, words)
        elif self.kind in ("resigned", "abandoned", "expelled", "expel_vote", "concluded"):
            message = self._leaving_text(you, reader, words)
        else:
            message = self._table_text(words)
        return message, (words if "%(" in message else {})

    def _stand_in_text(self, you: bool, words: dict) -> str:
        """The server's move for a player who left the game."""
        if self.kind == "draft":
            if you:
                # Translators: the move log. "The server" is the site itself, drafting for a
                # player who left the game; the pool's columns are numbered from 1.
                return gettext("the server took a %(tile)s from column %(column)s for you")
            # Translators: the move log. "The server" is the site itself, drafting for a player
            # (%(player)s, a username) who left the game; the pool's columns are numbered from 1.
            return gettext("the server took a %(tile)s from column %(column)s for %(player)s")
        if you:
            # Translators: the move log. "The server" is the site itself, finishing the board
            # of a player who left the game.
            return gettext("the server finished your board")
        # Translators: the move log. "The server" is the site itself, finishing the board of a
        # player (%(player)s, a username) who left the game.
        return gettext("the server finished %(player)s's board")

    def _draft_text(self, you: bool, words: dict) -> str:
        """A tile taken: drafted, by a queue, by the server when only one was left, or when the
        player's time ran out."""
        if self.kind == "draft" or (self.kind == "queued" and not you):
            # A queue is its player's own business: to the others it is a draft like any other.
            if you:
                # Translators: the move log: the reader's own draft. The pool's columns are
                # numbered from 1.
                return gettext("you took a %(tile)s from column %(column)s")
            # Translators: the move log: a player's draft (%(player)s is a username). The
            # pool's columns are numbered from 1.
            return gettext("%(player)s took a %(tile)s from column %(column)s")
        if self.kind == "queued":
            # Translators: the move log, to the player who had chosen their draft ahead of
            # their turn ("queued" it): the site took it for them when the turn came. The
            # pool's columns are numbered from 1.
            return gettext("your queued draft took a %(tile)s from column %(column)s")
        if self.kind == "forced_take":
            if you:
                return gettext(
                    # Translators: the move log. "The server" is the site itself: a column with a
                    # single tile left is taken for the player whose turn it is, who has no choice.
                    # The pool's columns are numbered from 1.
                    "the server took the last tile of column %(column)s, a %(tile)s, for you"
                )
            return gettext(
                # Translators: the move log. "The server" is the site itself: a column with a
                # single tile left is taken for the player (%(player)s, a username) whose turn it
                # is, who has no choice. The pool's columns are numbered from 1.
                "the server took the last tile of column %(column)s, a %(tile)s, for %(player)s"
            )
        # A timeout: the player's time for their turn ran out, and the site drafted for them,
        # or confirmed the draft they had chosen but not confirmed.
        if self.confirmed:
            if you:
                return gettext(
                    # Translators: the move log. "The server" is the site itself: the player had
                    # chosen a tile but not confirmed it when their time for the turn ran out.
                    "your time ran out: the server confirmed your draft of a %(tile)s"
                )
            return gettext(
                # Translators: the move log. "The server" is the site itself: the player
                # (%(player)s, a username) had chosen a tile but not confirmed it when their time
                # for the turn ran out.
                "%(player)s's time ran out: the server confirmed %(player)s's draft of a %(tile)s"
            )
        if you:
            return gettext(
                # Translators: the move log. "The server" is the site itself, drafting for the
                # player when their time for the turn ran out. The pool's columns are numbered
                # from 1.
                "your time ran out: the server took a %(tile)s from column %(column)s for you"
            )
        return gettext(
            # Translators: the move log. "The server" is the site itself, drafting for the player
            # (%(player)s, a username) when their time for the turn ran out. The pool's columns are
            # numbered from 1.
            "%(player)s's time ran out: the server took a %(tile)s from column %(column)s "
            "for %(player)s"
        )

    def _finish_text(self, you: bool, words: dict) -> str:
        """A board finished, by its player or when their finishing time ran out."""
        if self.kind == "finish":
            if you:
                # Translators: the move log: the reader declared their board finished (the
                # game's last phase, after the drafting).
                return gettext("you finished")
            # Translators: the move log: a player (%(player)s, a username) declared their board
            # finished (the game's last phase, after the drafting).
            return gettext("%(player)s finished")
        count = self.returned
        words["count"] = count
        if you:
            if not count:
                # Translators: the move log: the reader's time to finish their board ran out,
                # and the site submitted it as it was.
                return gettext("your finishing time ran out: the board was submitted as it was")
            return ngettext(
                # Translators: the move log: the reader's time to finish their board ran out; the
                # site submitted it as it was, after putting the tiles that broke the rules back
                # in the player's tray (the tiles they hold but have not placed).
                "your finishing time ran out: the board was submitted as it was, "
                "%(count)d illegal tile back to the tray",
                "your finishing time ran out: the board was submitted as it was, "
                "%(count)d illegal tiles back to the tray",
                count,
            )
        if not count:
            return gettext(
                # Translators: the move log: a player's (%(player)s, a username) time to finish
                # their board ran out, and the site submitted it as it was.
                "%(player)s's finishing time ran out: the board was submitted as it was"
            )
        return ngettext(
            # Translators: the move log: a player's (%(player)s, a username) time to finish their
            # board ran out; the site submitted it as it was, after putting the tiles that broke
            # the rules back in the player's tray (the tiles they hold but have not placed).
            "%(player)s's finishing time ran out: the board was submitted as it was, "
            "%(count)d illegal tile back to the tray",
            "%(player)s's finishing time ran out: the board was submitted as it was, "
            "%(count)d illegal tiles back to the tray",
            count,
        )

    def _leaving_text(self, you: bool, reader: int | None, words: dict) -> str:
        """A player leaving a game under way, and the votes that hand a seat over."""
        if self.kind == "resigned":
            if you:
                # Translators: the move log. "The server" is the site itself, which plays a
                # seat whose player left the game.
                return gettext("you resigned: the server plays your seat from now on")
            # Translators: the move log. "The server" is the site itself, which plays a seat
            # whose player (%(player)s, a username) left the game.
            return gettext("%(player)s resigned: the server plays their seat from now on")
        if self.kind == "abandoned":
            if you:
                return gettext(
                    # Translators: the move log. "The server" is the site itself: after too many
                    # turns where their time ran out, it plays the player's seat.
                    "your time ran out too often: the server plays your seat from now on"
                )
            return gettext(
                # Translators: the move log. "The server" is the site itself: after too many turns
                # where the time of a player (%(player)s, a username) ran out, it plays their seat.
                "%(player)s's time ran out too often: the server plays their seat from now on"
            )
        if self.kind == "expelled":
            if you:
                # Translators: the move log. The other players voted to hand the reader's seat
                # to "the server", the site itself, which plays it from then on.
                return gettext("the others voted: the server plays your seat from now on")
            # Translators: the move log. The other players voted to hand a player's
            # (%(player)s, a username) seat to "the server", the site itself, which plays it
            # from then on.
            return gettext("the others voted: the server plays %(player)s's seat from now on")
        if self.kind == "expel_vote":
            votes, needed = self.votes
            words.update(target=self.target_name, votes=votes, needed=needed)
            if you:
                return ngettext(
                    # Translators: the move log: the reader voted to hand another player's
                    # (%(target)s, a username) seat to "the server", the site itself, which plays
                    # it once enough players voted: %(votes)d votes so far of the %(needed)d
                    # needed.
                    "you voted to hand %(target)s's seat to the server (%(votes)d of the "
                    "%(needed)d vote needed)",
                    "you voted to hand %(target)s's seat to the server (%(votes)d of the "
                    "%(needed)d votes needed)",
                    needed,
                )
            if reader is not None and self.target == reader:
                return ngettext(
                    # Translators: the move log: a player (%(player)s, a username) voted to hand
                    # the reader's seat to "the server", the site itself, which plays it once
                    # enough players voted: %(votes)d votes so far of the %(needed)d needed.
                    "%(player)s voted to hand your seat to the server (%(votes)d of the "
                    "%(needed)d vote needed)",
                    "%(player)s voted to hand your seat to the server (%(votes)d of the "
                    "%(needed)d votes needed)",
                    needed,
                )
            return ngettext(
                # Translators: the move log: a player (%(player)s, a username) voted to hand
                # another player's (%(target)s, a username) seat to "the server", the site
                # itself, which plays it once enough players voted: %(votes)d votes so far of
                # the %(needed)d needed.
                "%(player)s voted to hand %(target)s's seat to the server (%(votes)d of "
                "the %(needed)d vote needed)",
                "%(player)s voted to hand %(target)s's seat to the server (%(votes)d of "
                "the %(needed)d votes needed)",
                needed,
            )
        # Concluded: every player has left; the site ends the game.
        # Translators: the move log: every player has left the game, so it ends now, each
        # board counted as it is.
        return gettext("nobody is left playing: the game ends with every board as it stands")

    def _table_text(self, words: dict) -> str:
        """What happened at the table before the start, the start, and after the end. (These
        name the player who acted: they have no seat.)"""
        kind = self.kind
        if kind == "joined":
            # Translators: the move log, before the game starts: a player (%(player)s, a
            # username) joined the table.
            return gettext("%(player)s took a seat")
        if kind == "left":
            # Translators: the move log, before the game starts: a player (%(player)s, a
            # username) left the table.
            return gettext("%(player)s left the table")
        if kind == "created":
            # Translators: the move log: a player (%(player)s, a username) created the game
            # (its table, where players gather before it starts).
            return gettext("%(player)s opened the table")
        if kind == "started":
            # Translators: the move log: the game started, and %(player)s (a username) drafts
            # the first tile.
            words["player"] = self.extra  # who drafts first
            return gettext("the game started: %(player)s drafts first")
        if kind == "cancelled":
            # Translators: the move log: the game's creator (%(player)s, a username) called
            # the game off before it started.
            return gettext("%(player)s cancelled the game")
        if kind == "declined":
            # Translators: the move log: a player (%(player)s, a username) invited to the game
            # declined the invitation.
            return gettext("%(player)s declined the invitation")
        if kind == "ended":
            # Translators: the move log: the game ended.
            return gettext("the game is over")
        if kind == "analysed":
            # Translators: the move log: the site finished analysing the ended game (each
            # player's best possible board), which its page now shows.
            return gettext("the post-game analysis is ready")
        return kind.replace("_", " ")


# A message that begins with one of these begins with a player's name, not to be capitalised.
NAMES_FIRST = ("%(player)s", "%(target)s")
SERVERS_WORK = {"forced_take", "timeout", "deadline", "abandoned", "expelled", "queued"}
# Of the server's work for a seat, what its player must know of or act on, and would not expect:
# their time ran out, their seat was handed to the server, the finishing deadline submitted their
# board. A forced take or their own queued draft is routine: the move log and "Since your last
# visit" tell it, not a notice to dismiss.
ALARMS = {"timeout", "deadline", "abandoned", "expelled"}
# Why a seat left, by the cause of its Resign event (games/play/leaving.py).
LEFT_BY = {Cause.PLAYER: "resigned", Cause.ABANDONED: "abandoned", Cause.EXPELLED: "expelled"}
LOBBY = 0  # the turn of what happened before the first draft


@dataclass(frozen=True)
class Turn:
    """The entries of one draft's turn (or of the lobby, or of the finishing phase)."""

    number: int | None
    entries: tuple[Entry, ...]

    @property
    def label(self) -> str:
        """The turn's heading in the move log, in the active language."""
        if self.number == LOBBY:
            # Translators: a heading of the move log, over what happened at the game's table
            # before it started (players taking seats, the start).
            return pgettext("move log", "At the table")
        if self.number is None:
            return pgettext("the game's phase", "Finishing")
        # Translators: a heading of the move log, over what happened in one turn of the
        # drafting (a player's draft); turns are numbered from 1.
        return gettext("Turn %(number)d") % {"number": self.number}


@dataclass
class Log:
    """A game's entries, from one fold of its events, extended as new events come.

    `names` are the players' names by user id (every seat's user: the lobby's entries name
    people by who acted); `seats` by seat number, once the game started."""

    names: dict[int, str]
    seat_names: list[str] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    version: int = 0
    _fold: Fold | None = None  # the rules' one fold (games/rules/replay.py), as events come
    _pending: Event | None = None  # the draft a confirmation will complete
    _returned: dict[int, int] = field(default_factory=dict)  # deadline returns, by seat

    def extend(self, events) -> None:
        """Take the events after `version`, in order (others are ignored)."""
        for event in events:
            if event.number <= self.version:
                continue
            self._take(event)
            self.version = event.number

    def _take(self, event: Event) -> None:
        if event.kind == "started":
            data = event.data
            self._fold = Fold.from_start(data)
            self.seat_names = [self.names.get(user_id, "?") for user_id in data["seats"]]
            first = self.seat_names[data["first_seat"]] if self.seat_names else ""
            self._add(event, "started", turn=LOBBY, extra=first)
            return
        if event.kind == "expel_vote":
            target = event.data["seat"]
            self._add(
                event,
                "expel_vote",
                seat=event.seat,
                turn=turn_number(self._fold.state),
                target=target,
                target_name=self.seat_names[target] if target < len(self.seat_names) else "",
                votes=(event.data["votes"], event.data["needed"]),
            )
            return
        if event.action is None:  # the lobby and the analysis
            if event.kind not in QUIET:
                turn = None if event.kind == "analysed" else LOBBY
                self._add(event, event.kind, turn=turn, name=self._actor(event))
            return
        before, after = self._fold.take(event.seat, event.action)
        seat, turn = event.seat, turn_number(before)
        stand_in = event.cause == Cause.STAND_IN
        if event.kind == "draft":
            self._pending = event
        elif event.kind == "undo_draft":
            self._pending = None
        elif event.kind == "confirm_draft":
            taken = {"tile": before.pending.tile_id, "column": before.pending.column}
            if event.cause == Cause.TIMEOUT:
                # Drafted for them (the server's draft has the same cause), or theirs confirmed.
                drafted = self._pending is not None and self._pending.cause == Cause.TIMEOUT
                self._add(event, "timeout", seat=seat, turn=turn, confirmed=not drafted, **taken)
            elif event.cause == Cause.QUEUED:  # drafted and confirmed as their queue said
                self._add(event, "queued", seat=seat, turn=turn, **taken)
            else:
                self._add(event, "draft", seat=seat, turn=turn, stand_in=stand_in, **taken)
            self._pending = None
        elif event.kind == "take_last":
            taken = {"tile": event.action["tile_id"], "column": before.draw_column()}
            self._add(event, "forced_take", seat=seat, turn=turn, **taken)
        elif event.kind == "return" and event.cause == Cause.DEADLINE:
            self._returned[seat] = self._returned.get(seat, 0) + 1
        elif event.kind == "finish":
            if event.cause == Cause.DEADLINE:
                self._add(event, "deadline", seat=seat, returned=self._returned.pop(seat, 0))
            else:
                self._add(event, "finish", seat=seat, stand_in=stand_in)
            if after.phase == rules.ENDED:
                self._add(event, "ended")
        elif event.kind == "resign":
            self._add(event, LEFT_BY.get(event.cause, "resigned"), seat=seat, turn=turn)
            if after.phase == rules.ENDED:  # early, in the turn it was in
                self._add(event, "ended", turn=turn)
        elif event.kind == "conclude":
            self._add(event, "concluded", turn=turn)
            self._add(event, "ended", turn=turn)

    def _actor(self, event: Event) -> str:
        if event.actor_id is None:
            return ""
        return self.names.get(event.actor_id) or event.actor.username  # one who left the table

    def _add(self, event: Event, kind: str, *, seat=None, name="", **parts) -> None:
        if seat is not None and not name:
            name = self.seat_names[seat] if seat < len(self.seat_names) else ""
        entry = Entry(event.number, kind, event.created_at, seat=seat, name=name, **parts)
        self.entries.append(entry)

    # --- reading -------------------------------------------------------------------------------

    def until(self, version: int) -> Log:
        """A copy of the log as it was at `version`, to read while this one goes on growing."""
        entries = [entry for entry in self.entries if entry.number <= version]
        return Log(dict(self.names), list(self.seat_names), entries, min(version, self.version))

    def since(self, version: int, *, besides: int | None = None) -> list[Entry]:
        """The entries after `version`, oldest first, not counting those of seat `besides`'s own
        doing (what they did themselves is no news to them)."""
        return [
            entry
            for entry in self.entries
            if entry.number > version
            and not (entry.seat == besides and not entry.concerns(besides))
        ]

    def readers_of(self, version: int) -> set[int]:
        """The seats that the turns `version` wrote in speak to as "you": their own entries, a
        vote on their seat. Every other reader reads those turns in the same words as anyone
        (`Entry.text`, games/drawing/log_page.py `log_row`), so a move's news in the log is
        drawn once for all of them (issue 36)."""
        touched = {entry.turn for entry in self.entries if entry.number == version}
        readers = set()
        for entry in self.entries:
            if entry.turn in touched:
                readers.update(seat for seat in (entry.seat, entry.target) if seat is not None)
        return readers

    def turns(self, *, newest_first: bool = True) -> list[Turn]:
        """The entries grouped by turn, the newest turn (and entry) first."""
        groups: list[Turn] = []
        for entry in self.entries:
            number = entry.turn
            if groups and groups[-1].number == number:
                groups[-1] = Turn(number, (*groups[-1].entries, entry))
            else:
                groups.append(Turn(number, (entry,)))
        if newest_first:
            return [Turn(turn.number, turn.entries[::-1]) for turn in reversed(groups)]
        return groups

    def last_taken(self) -> dict[int, int]:
        """The tile each seat got last (a draft, a forced take, a timeout's), by seat number."""
        last = {}
        for entry in self.entries:
            if entry.tile is not None and entry.seat is not None:
                last[entry.seat] = entry.tile
        return last


def read_log(game, seats) -> Log:
    """The log of a game from all its events (one query), its seats with their users."""
    log = Log(names={seat.user_id: seat.user.username for seat in seats})
    log.extend(events_after(game.pk, -1))
    return log


def events_after(game_id: int, number: int) -> list[Event]:
    """The events of a game after `number`, in order, each with its actor (if any).

    One select written once (infra/selects.py): a process whose copy of a game's log is a few
    versions behind reads their events on most moves of the game (six gunicorn workers seldom
    draw two versions of a game in a row), and the queryset with its actor joined cost 1.3 ms
    of CPU to compile and run for six events, about a tenth of gunicorn's CPU per move under
    load (issue 36)."""
    rows, columns, db = _events_with_actors.rows(game_id, number)
    events = []
    for row in rows:
        event = columns[0].make(db.alias, db, row)
        event.actor = columns[1].make(db.alias, db, row) if event.actor_id is not None else None
        events.append(event)
    return events


def _events_with_actors_sql(connection):
    quote = connection.ops.quote_name
    event = Columns(Event, "event", connection, 0)
    User = get_user_model()
    actor = Columns(User, "actor", connection, event.end)
    column = Event._meta.get_field
    sql = (
        f"SELECT {event.sql}, {actor.sql} FROM {table_name(Event, connection)} {quote('event')} "
        f"LEFT OUTER JOIN {table_name(User, connection)} {quote('actor')} "
        f"ON {quote('actor')}.{quote(User._meta.pk.column)} = "
        f"{quote('event')}.{quote(column('actor').column)} "
        f"WHERE {quote('event')}.{quote(column('game').column)} = %s "
        f"AND {quote('event')}.{quote(column('number').column)} > %s "
        f"ORDER BY {quote('event')}.{quote(column('number').column)} ASC"
    )
    return sql, (event, actor)


_events_with_actors = Select(_events_with_actors_sql)


# The logs of the games this process drew lately, each as far as it has read: a page or a push
# then reads only the events after it (one query; none when the move that made them is here).
_logs = LRU(512)
_extending = threading.Lock()


def keep_events(game, seats, events) -> None:
    """Extend this process's copy of the log of `game` with `events` (a change's new events, in
    order) if it has one that they continue: a process that draws only some of a game's
    versions keeps its log whole without reading the others' events. Called on an event loop,
    it never waits: a log busy being extended (a query, maybe) reads what it misses itself."""
    if not events or not _extending.acquire(blocking=False):
        return
    try:
        log = _logs.get((game.pk, game.invite_token))
        if log is not None and events[0].number == log.version + 1:
            log.names.update({seat.user_id: seat.user.username for seat in seats})
            log.extend(events)
    finally:
        _extending.release()


def holds(game, known=()) -> bool:
    """Whether `log_of(game, seats, known)` needs no query: this process's copy of the log
    reaches the game's version, or `known` continues it there."""
    log = _logs.get((game.pk, game.invite_token))
    if log is None:
        return False
    if known and known[0].number == log.version + 1:
        return known[-1].number >= game.version
    return log.version >= game.version


def log_of(game, seats, known=()) -> Log:
    """The log of `game` up to its version at least, from this process's copy extended with
    `known` (the events a change made here, in order) or else with the events after it. The
    returned log is a copy at the game's version."""
    # An id alone may come again (tests that roll back), with the same creation time too under
    # a frozen clock; the invitation token is drawn afresh for every game.
    key = (game.pk, game.invite_token)
    with _extending:
        log = _logs.get(key)
        if log is None:
            log = Log(names={})
        log.names.update({seat.user_id: seat.user.username for seat in seats})
        if known and known[0].number == log.version + 1:
            log.extend(known)
        if log.version < game.version:
            log.extend(events_after(game.pk, log.version))
        if game.status == game.Status.PLAYING:  # an ended game's log is read once, for its page
            _logs.put(key, log)
        else:
            _logs.pop(key)
        return log.until(game.version)


def summary(entries: list[Entry], reader: int | None) -> str:
    """A few words for a list of entries, for the player at seat `reader`: "brian took a red
    cross and a blue corner; the server took the last tile of column 9 for you"."""
    return "; ".join(summary_parts(entries, reader))


def summary_sentence(entries: list[Entry], reader: int | None) -> str:
    """`summary` as a sentence: its first letter a capital unless it begins with a player's
    name ("brian took...", "The server took..."), in any language (as `Entry.sentence`)."""
    clauses = _clauses(entries, reader)
    if not clauses:
        return ""
    text = "; ".join(clause for clause, _ in clauses)
    return text if clauses[0][1] else text[:1].upper() + text[1:]


def summary_parts(entries: list[Entry], reader: int | None) -> list[str]:
    """The clauses of `summary`, in order: each player's drafts in one, every other entry in
    its own (the "your move" email puts one on each line); in the active language."""
    return [clause for clause, _ in _clauses(entries, reader)]


def _clauses(entries: list[Entry], reader: int | None) -> list[tuple[str, bool]]:
    """The clauses of `summary`, each with whether it begins with a player's name."""
    drafts: dict[str, list[int]] = {}  # who: tiles, in order, merged into one clause
    order: list[tuple[str, Entry | str]] = []
    for entry in entries:
        if entry.kind in ("draft", "queued") and entry.seat != reader and not entry.stand_in:
            if entry.name not in drafts:
                drafts[entry.name] = []
                order.append(("draft", entry.name))
            drafts[entry.name].append(entry.tile)
        elif entry.kind not in ("joined", "created", "analysed"):
            order.append(("entry", entry))
    clauses = []
    for what, value in order:
        if what == "draft":
            message, words = _drafts_message(value, drafts[value])
        else:
            message, words = value._message(reader)
        clauses.append((message % words if words else message, message.startswith(NAMES_FIRST)))
    return clauses


def _drafts_message(player: str, tiles: list[int]) -> tuple[str, dict[str, object]]:
    if len(tiles) == 1:
        # Translators: a summary of what happened in a game since the reader last looked: a
        # player (%(player)s, a username) drafted a tile.
        message = gettext("%(player)s took a %(tile)s")
        return message, {"player": player, "tile": tile_words(tiles[0])}
    listed = and_list(
        # Translators: one of the tiles in a list of the tiles a player drafted ("brian took a
        # red cross, a blue end and a pink tee").
        pgettext("one of several tiles", "a %(tile)s") % {"tile": tile_words(tile)}
        for tile in tiles
    )
    # Translators: a summary of what happened in a game since the reader last looked: a
    # player (%(player)s, a username) drafted several tiles, %(tiles)s, a list such as "a red
    # cross, a blue end and a pink tee".
    return gettext("%(player)s took %(tiles)s"), {"player": player, "tiles": listed}
