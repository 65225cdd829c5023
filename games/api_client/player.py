"""The bot's loop: follow the stream, and whenever a game waits for its move, play it."""

import logging
import time
from dataclasses import dataclass, field

import httpx

from games.rules import GameState
from games.rules.bots import make_bot

from .connection import Connection, Refused

log = logging.getLogger("games.api_client")

# After a dropped stream: wait this long, doubling up to the most, before reconnecting.
FIRST_RETRY, MOST_RETRY = 1.0, 30.0
# A move refused as stale (the game moved on meanwhile) is thought again this many times.
STALE_RETRIES = 5


@dataclass
class Options:
    level: str = "strong"
    seek_players: int | None = None  # seek games of this many players (quick play)
    time_per_move: str = "1d"
    rated: bool = True
    accept_invitations: bool = False
    games: int | None = None  # stop after this many games have ended (None: never)
    think: float | None = None  # the strong player's seconds a decision (None: its own)


@dataclass
class Player:
    connection: Connection
    options: Options
    versions: dict[int, int] = field(default_factory=dict)  # game id -> newest version seen
    seated: set[int] = field(default_factory=set)  # games it sits at, waiting or in play
    ended: set[int] = field(default_factory=set)
    seeking: bool = False

    def __post_init__(self):
        think = self.options.think
        timing = {} if think is None or self.options.level != "strong" else {
            "draft_time": think, "arrange_time": think, "finish_time": 3 * think
        }  # fmt: skip
        self.bot = make_bot(self.options.level, **timing)

    # --- the loop ------------------------------------------------------------------------------

    def run(self) -> None:
        """Play until the games asked for have ended (or forever), reconnecting as needed."""
        wait = FIRST_RETRY
        while not self.done():
            self.seek_if_wanted()
            try:
                for line in self.connection.stream(self.versions):
                    wait = FIRST_RETRY
                    self.heard(line)
                    if self.done():
                        return
            except (httpx.HTTPError, Refused) as error:
                if isinstance(error, Refused) and error.status in (401, 403):
                    raise
                log.warning("the stream dropped (%s); reconnecting in %.0f s", error, wait)
                time.sleep(wait)
                wait = min(wait * 2, MOST_RETRY)

    def done(self) -> bool:
        """With `games`: that many have ended, and none it sits at is left unfinished."""
        return (
            self.options.games is not None
            and len(self.ended) >= self.options.games
            and not self.seated
        )

    def wants_more(self) -> bool:
        """Whether to start another game: with `games`, not once that many have begun (those it
        sits at and those that ended), since each it begins it plays to the end."""
        wanted = self.options.games
        return wanted is None or len(self.seated) + len(self.ended) + int(self.seeking) < wanted

    def seek_if_wanted(self) -> None:
        if self.options.seek_players is None or self.seeking or self.seated:
            return
        if not self.wants_more():
            return
        answer = self.connection.post(
            "/seek",
            {
                "player_count": self.options.seek_players,
                "time_per_move": self.options.time_per_move,
                "rated": self.options.rated,
            },
        )
        self.seeking = bool(answer["waiting"])
        if answer["game"] is not None:
            self.seated.add(answer["game"]["id"])
            self.play(answer["game"]["id"])

    # --- what the stream says ----------------------------------------------------------------

    def heard(self, line: dict) -> None:
        kind, game = line.get("type"), line.get("game")
        if game is None:
            return
        if "version" in line:
            self.versions[game] = max(self.versions.get(game, 0), line["version"])
        if kind in ("game", "event", "start", "your_move") and game not in self.ended:
            self.seated.add(game)  # the stream speaks only of the games it sits at
        if kind == "invitation" and self.options.accept_invitations and self.wants_more():
            log.info("accepting the invitation to game %s", game)
            try:
                self.connection.post(f"/games/{game}/join")
                self.seated.add(game)
            except Refused as refusal:
                log.info("could not join game %s: %s", game, refusal)
        elif kind == "start":
            self.seeking = False
            self.play(game)
        elif kind in ("your_move",) or (kind == "game" and line.get("your_move")):
            self.play(game)
        elif kind == "end":
            if line.get("status") != "cancelled":  # a table that never began is no game played
                self.ended.add(game)
            self.seated.discard(game)
            self.versions.pop(game, None)  # nothing more to resume of it
            log.info("game %s ended: %s", game, line.get("results"))
            self.seek_if_wanted()

    # --- playing -----------------------------------------------------------------------------

    def play(self, game_id: int) -> None:
        """Make every move the bot wants now in this game, from the state the API gives."""
        shown = self.connection.get(f"/games/{game_id}")
        for _ in range(STALE_RETRIES):
            if shown["status"] != "playing" or shown["your_seat"] is None:
                return
            seat = shown["your_seat"]
            wanted = self.bot.next_actions(GameState.from_json(shown["rules_state"]), seat)
            if not wanted:
                return
            try:
                for action in wanted:
                    shown = self.connection.post(
                        f"/games/{game_id}/actions",
                        {"version": shown["version"], "action": action.to_json()},
                    )
                    self.versions[game_id] = shown["version"]
            except Refused as refusal:
                if refusal.code not in ("stale", "not_your_turn"):
                    raise
                shown = self.connection.get(f"/games/{game_id}")  # think again on the new state
                continue
            if not shown["your_move"]:
                return
            # Still its move (its draft confirmed, a forced take came back to it): again.
