"""The game board in the reader's language: the words built in Python for the board (a space's
and a tile's labels, the marks' words) go through gettext, and the drawing caches keep each
language apart (a piece drawn in German is never served to an English reader).

No catalogue has these messages yet: gettext is patched with one that shouts (upper case, but
the placeholders), in German only, where Django's own functions ask for it (`_trans`), so the
templates' tags and the lazy messages go through it too.
"""

import re
from types import SimpleNamespace

import pytest
from django.utils import translation

from games.drawing import pieces
from games.drawing.controls import _space_control, pool_controls
from games.drawing.spaces import SpaceView, tile_view
from games.drawing.svg import space_svg, tile_svg
from games.drawing.view import Selection
from games.markers import Marks
from games.rules.analysis import SpaceStatus
from games.rules.tiles import N

RED_END = 12  # the first red tile: an end, its path north at rotation 0
PLACEHOLDER = re.compile(r"(%\(\w+\)[sd])")


def shout(message: str) -> str:
    """`message` in capitals, but its placeholders."""
    parts = PLACEHOLDER.split(str(message))
    return "".join(part if PLACEHOLDER.fullmatch(part) else part.upper() for part in parts)


@pytest.fixture
def shouting(monkeypatch):
    """A catalogue that shouts every message, in the languages `loud` says (all by default)."""
    loud = {"languages": None}

    def said(message):
        languages = loud["languages"]
        language = translation.get_language() or ""
        return shout(message) if languages is None or language in languages else message

    trans = translation._trans
    monkeypatch.setattr(trans, "gettext", said)
    monkeypatch.setattr(trans, "pgettext", lambda context, message: said(message))
    monkeypatch.setattr(
        trans, "ngettext", lambda one, many, number: said(one if number == 1 else many)
    )
    monkeypatch.setattr(
        trans,
        "npgettext",
        lambda context, one, many, number: said(one if number == 1 else many),
    )
    return loud


def test_the_words_of_a_space_and_its_tile_go_through_gettext(shouting):
    shouting["languages"] = {"es"}
    tile = tile_view(RED_END)
    placed = SpaceView(
        index=7,
        colour="blue",
        tile=tile,
        status=SpaceStatus("illegal", ("wrong_colour",)),
        structure="chip",
        marks=Marks("red", "blue", N),
    )
    empty = SpaceView(index=0, colour="green", tile=None, status=None)
    with translation.override("es"):
        assert tile.name == "RED END"
        assert tile.label == "RED END, PATHS NORTH"
        assert empty.label == "EMPTY GREEN SPACE, ROW 1, COLUMN 1"
        assert placed.label == (
            "RED END, PATHS NORTH ON BLUE SPACE, ROW 2, COLUMN 3: ILLEGAL "
            "(WRONG COLOUR: A RED TILE ON A BLUE SPACE), IN THE CHIP"
        )
        control = _space_control(placed, Selection(), False, RED_END)
        assert control.label.startswith("SELECT THE RED END, PATHS NORTH ON BLUE SPACE")
        assert control.label.endswith(", THE LAST TILE THIS PLAYER GOT")
        assert control.title == "WRONG COLOUR: A RED TILE ON A BLUE SPACE"
    # The same views, read in English, say the English.
    with translation.override("en-gb"):
        assert placed.label == (
            "red end, paths north on blue space, row 2, column 3: illegal "
            "(wrong colour: a red tile on a blue space), in the chip"
        )
        assert empty.label == "empty green space, row 1, column 1"


def test_a_drawn_tile_and_space_say_their_words_through_gettext(shouting):
    with translation.override("es"):
        assert 'aria-label="RED END, PATH NORTH"' in tile_svg("end", "red", N)
        assert 'aria-label="EMPTY RED SPACE"' in space_svg("red")


def pool_context(tile_id: int) -> dict:
    """What the pool's controls read: a pool of one column of one tile, not the viewer's turn."""
    view = SimpleNamespace(
        my_turn=False,
        viewer_seat=None,
        columns=[[tile_view(tile_id)]],
        error_tile=None,
        draw_column=0,
    )
    return {"view": view, "user": None}


def pool_tile_drawn(context) -> str:
    """The pool's one tile, drawn in the active language as the pool's columns draw it."""
    control = pool_controls(context["view"])[0][0]
    return pieces._pool_tile_html(control, False, translation.get_language())


def test_the_drawing_caches_keep_each_language_apart(shouting):
    shouting["languages"] = {"de"}
    context = pool_context(RED_END + 1)  # a tile no other test draws first
    with translation.override("en-gb"):
        english = pool_tile_drawn(context)
        english_tile = tile_svg("end", "red", N, colour_blind=True)
        english_space = space_svg("pink", colour_blind=True)
    with translation.override("de"):
        german = pool_tile_drawn(context)
        german_tile = tile_svg("end", "red", N, colour_blind=True)
        german_space = space_svg("pink", colour_blind=True)
    assert 'aria-label="red end, path north"' in english
    assert 'aria-label="RED END, PATH NORTH"' in german
    assert german != english
    assert 'aria-label="RED END, PATH NORTH"' in german_tile and german_tile != english_tile
    assert 'aria-label="EMPTY PINK SPACE"' in german_space and german_space != english_space
    # And the English is still served to English readers, from its own cache.
    with translation.override("en-gb"):
        assert pool_tile_drawn(context) == english
        assert tile_svg("end", "red", N, colour_blind=True) == english_tile
