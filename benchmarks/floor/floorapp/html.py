"""The floor's HTML, two ways (FLOOR_HTML in the settings):

- "template" (the floor since issue 36): a board of 25 spaces, a tray and a status line drawn by
  a small Django template (benchmarks/floor/floorapp/templates/floorapp/table.html), about the
  size of the platform's median answer to a move; drawn once per move for the mover's answer
  and once for everyone else's push, which the consumer forwards as it is.
- "fixed" (the floor of issue 21): about 2 KB of board-like HTML made once at start; a move only
  fills in two numbers, for the answer and for each socket's push.
"""

from django.template.loader import render_to_string
from django.utils.translation import gettext

COLOURS = ("red", "blue", "green", "yellow", "purple")
TRAY = ("R1a", "B2c", "G3b", "Y4d", "P5a")


def _board():
    cells = "".join(
        f'<button class="space s{i}" name="space" value="{i}" hx-post="act" '
        f"hx-vals='{{\"version\": %(version)d}}'>"
        f'<svg viewBox="0 0 10 10"><use href="#t{i % 7}"/></svg></button>'
        for i in range(13)
    )
    return (
        '<div id="board-%(seat)d" class="board" data-version="%(version)d" hx-swap-oob="true">'
        + cells
        + "</div>"
    )


BOARD = _board()


def board(seat, version):
    return BOARD % {"seat": seat, "version": version}


def table(state: dict, seat: int, version: int, *, mine: bool) -> str:
    """The seat's board, its tray and the status line at `version`, for the mover (`mine`: the
    spaces and tray tiles are buttons) or for everyone else."""
    tiles = state.get("boards", {}).get(str(seat), [])
    where = gettext("Row %(row)d, column %(column)d")
    spaces = []
    for number in range(25):
        colour = COLOURS[(number + number // 5) % 5]
        tile = tiles[number] if number < len(tiles) else ""
        label = where % {"row": number // 5 + 1, "column": number % 5 + 1}
        spaces.append({"number": number, "colour": colour, "tile": tile, "label": label})
    tray = [{"id": tile, "label": gettext("Tile %(tile)s") % {"tile": tile}} for tile in TRAY]
    context = {
        "seat": seat,
        "version": version,
        "mine": mine,
        "player": f"player {seat + 1}",
        "board_label": gettext("Board of player %(seat)d") % {"seat": seat + 1},
        "spaces": spaces,
        "tray": tray,
    }
    return render_to_string("floorapp/table.html", context)
