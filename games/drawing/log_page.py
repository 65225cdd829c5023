"""The move log as a page draws it: its turns, newest first, a page at a time, in words for
its reader (the entries and their words: games/move_log.py)."""

from dataclasses import dataclass

from games import move_log

LOG_TURNS_PER_PAGE = 8


@dataclass(frozen=True)
class LogRow:
    """One entry of the move log, in words for its reader."""

    number: int
    when: object
    text: str
    kind: str
    servers: bool  # the server's doing (a forced take, a timeout, a deadline)
    mine: bool  # the reader's own, or done to them


@dataclass(frozen=True)
class LogTurn:
    label: str
    rows: list[LogRow]  # newest first
    key: str = ""  # its id on the page: the turn's number, "0" before the start, "finishing"


@dataclass(frozen=True)
class LogPage:
    """A page of the move log: its turns, newest first."""

    turns: list[LogTurn]
    page: int
    pages: int
    per_page: int = LOG_TURNS_PER_PAGE
    turn_count: int = 0  # of the whole log

    def news(self, version: int) -> list[tuple[LogTurn, bool]]:
        """The turns that `version` added entries to, oldest first, each with whether it is new
        (its first entry is of this version): what a page that shows the version before lacks."""
        touched = [turn for turn in self.turns if any(row.number == version for row in turn.rows)]
        return [(turn, turn.rows[-1].number == version) for turn in reversed(touched)]

    def news_parts(self, version: int) -> dict:
        """What templates/games/partials/move_log_news.html draws of `version` for a page that
        shows the version before: the turns it wrote in, and the page buttons ("page 1 of 3")
        only when its new turns changed them (issue 36: they went with every move that wrote in
        the log)."""
        news = self.news(version)
        added = sum(1 for _, new in news if new)
        changed = added > 0 and page_count(self.turn_count - added) != self.pages
        return {"log": self, "news": news, "page_buttons": changed}

    @property
    def newer(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def older(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def log_row(entry: move_log.Entry, reader: int | None) -> LogRow:
    return LogRow(
        number=entry.number,
        when=entry.when,
        text=entry.sentence(reader),
        kind=entry.kind,
        # Another player's queued draft reads as their draft (their queue is private).
        servers=entry.kind in move_log.SERVERS_WORK
        and (entry.kind != "queued" or entry.seat == reader),
        mine=reader is not None and entry.seat == reader,
    )


def page_count(turns: int) -> int:
    """The pages of a log of `turns` turns (one, empty, for none)."""
    return max(1, -(-turns // LOG_TURNS_PER_PAGE))


def log_page(log: move_log.Log, reader: int | None, page: int = 1) -> LogPage:
    """Page `page` (1: the newest turns) of the log, for the player at seat `reader`."""
    turns = log.turns()
    pages = page_count(len(turns))
    page = min(max(page, 1), pages)
    shown = turns[(page - 1) * LOG_TURNS_PER_PAGE : page * LOG_TURNS_PER_PAGE]
    return LogPage(
        [
            LogTurn(
                turn.label,
                [log_row(entry, reader) for entry in turn.entries],
                "finishing" if turn.number is None else str(turn.number),
            )
            for turn in shown
        ],
        page,
        pages,
        turn_count=len(turns),
    )
