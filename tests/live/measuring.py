"""Play a whole game through the site as its players' pages would, and weigh what travels: the
bytes of each move's answer (by the action's kind) and of each push drawn for every other
viewer (games/drawing/updates.py `draw_change`). Used by tests/live/test_bytes.py, and printable:

    python manage.py test tests/live/test_bytes.py -k figures -s
"""

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from benchmarks.loadtest.page import PageLooks
from games import rules
from games.drawing import updates
from games.drawing.cache.looks import page_looks
from games.play import actions
from tests.games.playing import current_state, next_move
from tests.games.test_views import HTMX, client_for

# The changes that arrange a board (issue 21: no answer to one above 10 KB).
ARRANGING = ("place", "rotate", "move", "swap", "return", "clear", "undo", "redo")


@dataclass
class Weighed:
    answers: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    pushes: list[int] = field(default_factory=list)
    selections: list[int] = field(default_factory=list)  # a tile picked up (a GET of its pieces)
    # Arrangements made on a page that showed no tile picked up (dropped by a drag, drawn on the
    # answer of the one before): their answers need not undo a selection's buttons.
    unselected: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def all_answers(self) -> list[int]:
        return [size for sizes in self.answers.values() for size in sizes]

    def table(self) -> str:
        rows = [("kind", "n", "median", "p95", "max")]
        for kind, sizes in sorted(self.answers.items()):
            rows.append((f"answer {kind}", *_figures(sizes)))
        rows.append(("answer (all)", *_figures(self.all_answers())))
        rows.append(("push (each viewer)", *_figures(self.pushes)))
        for kind, sizes in sorted(self.unselected.items()):
            rows.append((f"answer {kind}, nothing picked up", *_figures(sizes)))
        if self.selections:
            rows.append(("selection (GET)", *_figures(self.selections)))
        return "\n".join(f"| {' | '.join(str(cell) for cell in row)} |" for row in rows)


def _figures(sizes: list[int]) -> tuple:
    ordered = sorted(sizes)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return len(sizes), round(statistics.median(sizes)), p95, max(sizes)


DEBUG = False


class Page(PageLooks):
    """What one player's page shows of its pieces, and whether it shows a tile picked up."""

    def __init__(self, number: int):
        super().__init__()
        self.number = number
        self.picked = False  # a tile picked up: drawn with a selection
        self.unpicked: tuple[int, dict[str, str]] | None = None  # (version, {id: look})

    def keep_unpicked(self, html: str, version: int) -> None:
        """As live.js: before a selection's pieces are swapped in, keep those they replace."""
        if self.unpicked is None or self.unpicked[0] != version:
            self.unpicked = (version, {})
        kept = self.unpicked[1]
        for piece in re.findall(r'hx-swap-oob="true" id="(seat-\d+-[a-z0-9-]+)"', html):
            if piece in self.looks and piece not in kept:
                kept[piece] = self.looks[piece]

    def carry_unpicked(self, html: str, version: int, new_version: int) -> None:
        """As live.js after a rotation (the tile stays picked up): what it changed is dropped."""
        if self.unpicked is None or self.unpicked[0] != version:
            self.unpicked = None
            return
        kept = self.unpicked[1]
        for piece in re.findall(r'hx-swap-oob="true" id="([a-z0-9-]+)"', html):
            kept.pop(piece, None)
        self.unpicked = (new_version, kept)

    def put_unpicked_back(self, version: int) -> None:
        """As live.js before a move that ends the selection: the kept pieces go back."""
        if self.unpicked is not None and self.unpicked[0] == version:
            self.looks.update(self.unpicked[1])
        self.unpicked = None


def play_and_weigh(game, monkeypatch, *, extra_moves=True, select_first=True) -> Weighed:
    """Play `game` to its end, each move posted by its player's page as htmx posts it (the page
    up to date: it saw every push), and weigh each answer and each push for each other viewer
    (the other players and a visitor watching). With `extra_moves`, each placed tile is also
    rotated, and the player's board sometimes undone and redone, moved, swapped, returned and
    cleared, so that every kind of arrangement is weighed."""
    changes = []
    play = actions.play

    def recording_play(**kwargs):
        played = play(**kwargs)
        if played.change is not None:
            changes.append((played.change, played.seat.user_id if played.seat else None))
        return played

    monkeypatch.setattr(actions, "play", recording_play)
    seats = list(game.seats.select_related("user").order_by("number"))
    clients = {seat.number: client_for(seat.user) for seat in seats}
    viewers = [seat.user for seat in seats] + [AnonymousUser()]
    pages = {seat.user_id: Page(seat.number) for seat in seats}
    visitor = PageLooks()  # a signed-out visitor's page: its first push draws what changed whole
    fragment_url = reverse("games:fragment", args=[game.pk])
    for seat in seats:
        pages[seat.user_id].load(clients[seat.number].get(fragment_url, **HTMX).content.decode())
    weighed = Weighed()
    act_url = reverse("games:act", args=[game.pk])
    moves = 0

    def post(number, action: dict) -> int:
        game.refresh_from_db()
        before = game.version
        page = pages[seats[number].user_id]
        if action["type"] != "rotate":
            page.put_unpicked_back(before)
        response = clients[number].post(
            act_url,
            action,  # the version travels in the header, as live.js sends it
            **HTMX,
            HTTP_X_PAGE_VERSION=str(before),
            HTTP_X_PAGE_LOOKS=page.header(),
        )
        assert response.status_code in (200, 204), response.content[:300]
        keeps_selection = "sel=" in response.get("HX-Push-Url", "")
        if keeps_selection and response.get("X-Game-Parts") == "changed":
            new_version = int(response["X-Game-Version"])
            page.carry_unpicked(response.content.decode(), before, new_version)
        else:
            page.unpicked = None
        if response.status_code == 200:
            weighed.answers[action["type"]].append(len(response.content))
            if not page.picked and action["type"] in ARRANGING:
                weighed.unselected[action["type"]].append(len(response.content))
            page.picked = action["type"] == "rotate"  # the answer keeps the rotated tile picked
            html = response.content.decode()
            if DEBUG and len(html) > 10 * 1024:
                sent = re.findall(r'hx-swap-oob="true" id="([a-z0-9-]+)"', html)
                whole = re.findall(
                    r'id="((?:seat-\d+|pool))" data-look="[0-9a-f]+" hx-swap-oob', html
                )
                with Path("/tmp/bytes_debug.txt").open("a") as out:
                    print(action, len(html), whole, len(sent), sent, file=out)
            if response.get("X-Game-Parts") == "changed":
                page.swap(html)
            else:
                page.load(html)
        weigh_pushes()
        return response.status_code

    def select(number, selection):
        """Pick a tile up, as a click on it does: the page says what it shows (live.js)."""
        game.refresh_from_db()
        page = pages[seats[number].user_id]
        response = clients[number].get(
            f"{fragment_url}?sel={selection}",
            **HTMX,
            HTTP_X_PAGE_VERSION=str(game.version),
            HTTP_X_PAGE_LOOKS=page.header(),
        )
        weighed.selections.append(len(response.content))
        if response.get("X-Game-Parts") == "selection":
            page.keep_unpicked(response.content.decode(), game.version)
            page.swap(response.content.decode())
        else:
            page.load(response.content.decode())
        page.picked = True

    def weigh_pushes():
        while changes:
            change, mover = changes.pop(0)
            for viewer in viewers:
                if viewer.pk is not None and viewer.pk == mover:
                    continue
                # The viewer's socket knows what the page shows (it said so after its own
                # move's answer, games/live/consumers.py).
                page = pages.get(viewer.pk, visitor)
                html, _ = updates.draw_change(change.event(), viewer, page_looks(page.header()))
                weighed.pushes.append(len(html))
                page.swap(html)

    while True:
        state = current_state(game)
        if game.status == game.Status.PLAYING and state.forced_action() is not None:
            played = actions.take_last_tile(game_id=game.pk)
            if played is not None and played.change is not None:
                changes.append((played.change, None))
            weigh_pushes()
            continue
        move = next_move(game)
        if move is None:
            break
        number, action = move
        moves += 1
        if select_first and isinstance(action, rules.Place):
            select(number, f"t{action.tile_id}")
        post(number, action.to_json())
        if extra_moves and isinstance(action, rules.Place):
            select(number, f"s{action.space}")  # its menu turns it
            _arrange_more(post, game, number, action, moves)
    return weighed


def _arrange_more(post, game, number, place: rules.Place, moves: int) -> None:
    """Try the other arrangements on the tile just placed, leaving the board as greedy play had
    it (each is undone or put back)."""
    space = place.space
    post(number, {"type": "rotate", "space": space, "quarter_turns": 1})
    post(number, {"type": "rotate", "space": space, "quarter_turns": 3})
    cells = current_state(game).boards[number].cells
    if moves % 3 == 0:
        post(number, {"type": "undo"})
        post(number, {"type": "redo"})
    free = [s for s in range(25) if cells[s] is None]
    if moves % 4 == 0 and free:
        post(number, {"type": "move", "from_space": space, "to_space": free[0]})
        post(number, {"type": "move", "from_space": free[0], "to_space": space})
    taken = [s for s in range(25) if cells[s] is not None and s != space]
    if moves % 4 == 2 and taken:
        post(number, {"type": "swap", "space_a": space, "space_b": taken[0]})
        post(number, {"type": "swap", "space_a": space, "space_b": taken[0]})
    if moves % 5 == 0:
        post(number, {"type": "return", "space": space})
        post(number, {"type": "undo"})
    if moves % 7 == 0:
        post(number, {"type": "clear"})
        post(number, {"type": "undo"})
