"""The move log: what happened in a game, in the players' words, from its event log.

One fold of the log (games/rules/replay.py, as the replay page uses it) gives the state before
each rules event, which says what the event meant: which tile a confirmed draft took and from
which column, whose turn it was, which tile the server took. Each `Entry` is one thing a player
would want to know: a draft, a forced take, a timeout, a finish or a deadline, a player joining
or leaving, the start and the end. Arranging a board is not news and is left out; a draft put
back (undo) never happened.

The same entries make the game page's move log, its "since your last visit" summary, the
highlights of what others took, the page's notices of what happened to the player, and the
"your move" email's summary. `Log` keeps a game's fold, and extends it with new events, so that
a live page's log costs only the new events.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime

from games import rules
from games.models import Event
from games.rules.replay import turn_number
from microchip_site.lru import LRU

Cause = Event.Cause

# Events that tell nobody anything (arranging) or that are told with another (a draft, with its
# confirmation; the tiles a deadline returned, with its finish), or elsewhere (a vacation: by the
# player's name while it lasts).
QUIET = {
    "draft", "undo_draft", "place", "rotate", "move", "swap", "return", "clear", "undo", "redo",
    "invited", "vacation", "vacation_ended",
}  # fmt: skip


def tile_words(tile_id: int) -> str:
    """A tile as players say it: "red cross"."""
    tile = rules.TILES[tile_id]
    return f"{tile.colour.value} {tile.kind.value}"


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

    def text(self, reader: int | None = None) -> str:
        """The entry in words for the player at seat `reader` ("you"), or for anyone."""
        you = reader is not None and self.seat == reader
        who = "you" if you else self.name
        whose = "your" if you else f"{self.name}'s"
        tile = tile_words(self.tile) if self.tile is not None else ""
        column = f"column {self.column + 1}" if self.column is not None else ""
        if self.stand_in:
            if self.kind == "draft":
                return f"the server took a {tile} from {column} for {who}"
            return f"the server finished {whose} board"
        if self.kind == "draft" or (self.kind == "queued" and not you):
            # A queue is its player's own business: to the others it is a draft like any other.
            return f"{who} took a {tile} from {column}"
        if self.kind == "queued":
            return f"your queued draft took a {tile} from {column}"
        if self.kind == "forced_take":
            return f"the server took the last tile of {column}, a {tile}, for {who}"
        if self.kind == "timeout":
            if self.confirmed:
                return f"{whose} time ran out: the server confirmed {whose} draft of a {tile}"
            return f"{whose} time ran out: the server took a {tile} from {column} for {who}"
        if self.kind == "finish":
            return f"{who} finished"
        if self.kind == "deadline":
            back = ""
            if self.returned:
                s = "s" if self.returned != 1 else ""
                back = f", {self.returned} illegal tile{s} back to the tray"
            return f"{whose} finishing time ran out: the board was submitted as it was{back}"
        their = "your" if you else "their"
        if self.kind == "resigned":
            return f"{who} resigned: the server plays {their} seat from now on"
        if self.kind == "abandoned":
            return f"{whose} time ran out too often: the server plays {their} seat from now on"
        if self.kind == "expelled":
            return f"the others voted: the server plays {whose} seat from now on"
        if self.kind == "expel_vote":
            target = (
                "your"
                if reader is not None and self.target == reader
                else (f"{self.target_name}'s")
            )
            votes, needed = self.votes
            return (
                f"{who} voted to hand {target} seat to the server ({votes} of the {needed} "
                f"vote{'s' if needed != 1 else ''} needed)"
            )
        if self.kind == "concluded":
            return "nobody is left playing: the game ends with every board as it stands"
        if self.kind == "joined":
            return f"{who} took a seat"
        if self.kind == "left":
            return f"{who} left the table"
        if self.kind == "created":
            return f"{who} opened the table"
        if self.kind == "started":
            return f"the game started: {self.extra} drafts first"
        if self.kind == "cancelled":
            return f"{who} cancelled the game"
        if self.kind == "declined":
            return f"{who} declined the invitation"
        if self.kind == "ended":
            return "the game is over"
        if self.kind == "analysed":
            return "the post-game analysis is ready"
        return self.kind.replace("_", " ")


SERVERS_WORK = {"forced_take", "timeout", "deadline", "abandoned", "expelled", "queued"}
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
        if self.number == LOBBY:
            return "At the table"
        return f"Turn {self.number}" if self.number is not None else "Finishing"


@dataclass
class Log:
    """A game's entries, from one fold of its events, extended as new events come.

    `names` are the players' names by user id (every seat's user: the lobby's entries name
    people by who acted); `seats` by seat number, once the game started."""

    names: dict[int, str]
    seat_names: list[str] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    version: int = 0
    _state: rules.GameState | None = None
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
            self._state = rules.new_game(
                data["players"],
                data["seed"],
                data["first_seat"],
                strict_finish=data.get("strict_finish", False),
            )
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
                turn=turn_number(self._state),
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
        before = self._state
        after = before.apply(event.action, event.seat)
        self._state = after
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
    log.extend(game.events.select_related("actor").order_by("number"))
    return log


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
            newer = game.events.filter(number__gt=log.version).select_related("actor")
            log.extend(newer.order_by("number"))
        if game.status == game.Status.PLAYING:  # an ended game's log is read once, for its page
            _logs.put(key, log)
        else:
            _logs.pop(key)
        return log.until(game.version)


def summary(entries: list[Entry], reader: int | None) -> str:
    """A few words for a list of entries, for the player at seat `reader`: "brian took a red
    cross and a blue corner; the server took the last tile of column 9 for you"."""
    return "; ".join(summary_parts(entries, reader))


def summary_parts(entries: list[Entry], reader: int | None) -> list[str]:
    """The clauses of `summary`, in order: each player's drafts in one, every other entry in
    its own (the "your move" email puts one on each line)."""
    parts: list[str] = []
    drafts: dict[str, list[str]] = {}  # who: tiles, in order, merged into one clause
    order: list[tuple[str, str]] = []
    for entry in entries:
        if entry.kind in ("draft", "queued") and entry.seat != reader and not entry.stand_in:
            if entry.name not in drafts:
                drafts[entry.name] = []
                order.append(("draft", entry.name))
            drafts[entry.name].append(f"a {tile_words(entry.tile)}")
        elif entry.kind not in ("joined", "created", "analysed"):
            order.append(("entry", entry.text(reader)))
    for what, value in order:
        if what == "draft":
            tiles = drafts[value]
            listed = ", ".join(tiles[:-1]) + (" and " if len(tiles) > 1 else "") + tiles[-1]
            parts.append(f"{value} took {listed}")
        else:
            parts.append(value)
    return parts
