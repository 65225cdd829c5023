"""The home page's parts for a visitor: a computer game replayed, and what is on the site now.

The game is a real one between the site's two computer players (strong and easy), recorded
once as its actions (showcase_game.json; `record()` records one again, from `python3
manage.py shell`) and replayed here through the rules package into a few frames: both boards
every few turns, and as they finished. The frames are drawn on the server with the site's own tile
drawing (`<use>` of the page's sprite: some sixty bytes a tile), all in the page; a small
script (home.js) shows them one after the other, and without it the last frame stands: the
finished boards with their scores. The drawing depends only on the language: made once per
process and language.

The lists (games to watch, the best players, open tables) are the lobby's and leaderboard's
own queries, a few rows each, for a signed-out visitor; the tournaments one more query: the
public ones taking entries, the soonest first, then those in play.
"""

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import AnonymousUser
from django.db.models import Case, Count, IntegerField, Value, When
from django.template.loader import render_to_string
from django.utils import translation

from games import lobby, rules
from games.history.archive import leaderboard
from games.rules.tiles import TILES
from games.tournaments.models import Tournament

RECORDED = Path(__file__).with_name("showcase_game.json")
FRAME_EVERY = 6  # drafts (both players') between two frames
SHOWN = 5  # rows of each list
TOURNAMENTS_SHOWN = 3


@dataclass(frozen=True)
class Seat:
    name: str
    tiles: tuple[tuple[int, str, int], ...]  # (space, colour, paths) of each placed tile
    tray: int
    score: int


@dataclass(frozen=True)
class Frame:
    drafts: int  # drafts made so far, both players
    ended: bool
    seats: tuple[Seat, ...]


@functools.lru_cache(maxsize=1)
def recorded_game() -> dict:
    return json.loads(RECORDED.read_text())


@functools.lru_cache(maxsize=1)
def frames() -> tuple[tuple[Frame, ...], tuple[tuple, ...]]:
    """The recorded game's frames, and each board's colours."""
    game = recorded_game()
    names = [f"{level.capitalize()}Bot" for level in game["levels"]]
    state = rules.new_game(game["players"], game["seed"])
    taken = []

    def frame(ended=False):
        return Frame(
            state.drafts,
            ended,
            tuple(
                Seat(
                    names[seat],
                    tuple(
                        (space, TILES[cell.tile].colour.value, cell.paths)
                        for space, cell in enumerate(state.boards[seat].cells)
                        if cell is not None
                    ),
                    len(state.trays[seat]),
                    state.score(seat).score,
                )
                for seat in range(game["players"])
            ),
        )

    for seat, action in game["actions"]:
        before = state.drafts
        state = state.apply(rules.action_from_json(action), seat)
        if state.drafts != before and state.drafts % FRAME_EVERY == 0:
            taken.append(frame())
    taken.append(frame(ended=True))
    colours = tuple(tuple(colour.value for colour in board.colours) for board in state.boards)
    return tuple(taken), colours


def drafts_in_all() -> int:
    game = recorded_game()
    return rules.drafts_per_player(game["players"]) * game["players"]


@functools.lru_cache(maxsize=8)
def _showcase_html(language: str) -> str:
    shown, colours = frames()
    return render_to_string(
        "first_visit/showcase.html",
        {
            "frames": shown,
            "last": len(shown) - 1,
            "boards": colours,
            "drafts_in_all": drafts_in_all(),
        },
    )


def showcase_html() -> str:
    """The replayed game, drawn (in the active language)."""
    return _showcase_html(translation.get_language() or "en")


def home_lists(viewer=None) -> dict:
    """What is on the site now, as a visitor may see it: games to watch, the best players,
    open tables, tournaments."""
    viewer = viewer or AnonymousUser()
    return {
        "playing": lobby.games_to_watch(viewer, limit=SHOWN),
        "best": list(leaderboard(viewer)[:SHOWN]),
        "open_tables": list(lobby.open_games(viewer=viewer)[:SHOWN]),
        "tournaments": tournaments_to_join(),
    }


def tournaments_to_join(limit: int = TOURNAMENTS_SHOWN) -> list[Tournament]:
    """The public tournaments taking entries, the soonest to start first, then those in play
    (a visitor may follow them): one query, with each one's number of entrants."""
    open_first = Case(
        When(status=Tournament.Status.OPEN, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    return list(
        Tournament.objects.filter(
            access=Tournament.Access.PUBLIC,
            status__in=[Tournament.Status.OPEN, Tournament.Status.RUNNING],
        )
        .annotate(entrants=Count("entries"), open_first=open_first)
        .order_by("open_first", "starts_at", "pk")[:limit]
    )


def record(path: Path = RECORDED, seed: int = 20260601) -> None:
    """Play a game between the strong and the easy computer player and keep its actions."""
    from games.rules.bots import make_bot

    levels = ["strong", "easy"]
    bots = [make_bot(level, finish_time=2.0) for level in levels]
    state = rules.new_game(2, seed)
    log = []
    while not state.is_terminal():
        forced = state.forced_action()
        if forced is not None:
            log.append([state.current, forced.to_json()])
            state = state.apply(forced, state.current)
            continue
        moved = False
        for seat, bot in enumerate(bots):
            for action in bot.next_actions(state, seat):
                log.append([seat, action.to_json()])
                state = state.apply(action, seat)
                moved = True
        if not moved:
            raise RuntimeError("the computer players stopped before the end")
    data = {"players": 2, "seed": seed, "levels": levels, "actions": log}
    path.write_text(json.dumps(data, separators=(",", ":")))
