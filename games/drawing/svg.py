"""SVG drawings of Microchip tiles and board spaces (their template tags and filters are
registered by games/templatetags/microchip_svg.py).

Usage (load the library and include ``games/tiles.css`` on the page)::

    {% load microchip_svg %}
    <div class="tile-box">{% tile_svg "tee" "blue" 7 colour_blind=user.colour_blind %}</div>
    <div class="tile-box">{% space_svg "red" colour_blind=True %}</div>
    {{ 7|path_names }}  -> "north, east, south"

Conventions come from ``games.rules.tiles``: colours "blue", "red", "green", "yellow", "pink";
kinds "end", "straight", "corner", "tee", "cross"; paths a 4-bit mask N=1, E=2, S=4, W=8 that
is already rotated.

The drawings use a 100 x 100 viewBox and scale to their container. They carry no ids, no
scripts, no event handlers, no external references and no ``style`` attributes (only classes
and presentation attributes), so many can share a page under a strict Content Security Policy.
Every number written into the markup is formatted here as a string, so the template
localization never turns ``12.5`` into ``12,5``.

Bad input (an unknown colour or kind, a mask outside 0-15, or a mask that the kind cannot
have in any rotation) never raises: it draws a neutral grey "unknown tile" / "unknown space"
and logs a warning.
"""

from __future__ import annotations

import functools
import logging
import reprlib
from math import cos, radians, sin

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, ngettext

from games.markers import BROKEN, COLOUR, OPEN, Marks
from games.rules.tiles import (
    BASE_PATHS,
    COLOURS,
    KIND_PATHS,
    KINDS,
    TILE_NAMES,
    Colour,
    E,
    Kind,
    N,
    S,
    W,
)
from games.rules.tiles import COLOUR_NAMES as COLOUR_WORDS
from infra.lru import MIB, memo

logger = logging.getLogger(__name__)

_short_repr = reprlib.Repr()
_short_repr.maxstring = 40
_short_repr.maxother = 40

#: Side bit -> readable name, in N, E, S, W order (in the active language when said).
SIDE_NAMES: tuple[tuple[int, str], ...] = (
    # Translators: the sides of a tile that its paths reach, e.g. "paths north, east".
    (N, gettext_lazy("north")),
    (E, gettext_lazy("east")),
    (S, gettext_lazy("south")),
    (W, gettext_lazy("west")),
)
#: Where a path leaves the tile: the middle of each side (x, y), on the tile's edge.
SIDE_ENDS: dict[int, tuple[str, str]] = {
    N: ("50", "1"),
    E: ("99", "50"),
    S: ("50", "99"),
    W: ("1", "50"),
}

COLOUR_NAMES: tuple[str, ...] = tuple(c.value for c in COLOURS)
KIND_NAMES: tuple[str, ...] = tuple(k.value for k in KINDS)
#: Masks each kind can have (in any rotation).
KIND_MASKS: dict[str, frozenset[int]] = {k.value: frozenset(KIND_PATHS[k]) for k in KINDS}

#: Tile colours (the same as --tile-* in site.css); presentation-attribute fallbacks for CSS.
TILE_FILLS: dict[str, str] = {
    "blue": "#2f6fd6",
    "red": "#d63a3a",
    "green": "#2f9e58",
    "yellow": "#e0b020",
    "pink": "#e062b5",
}
#: Empty spaces: 30 % of the tile colour on white, so a placed tile stands out.
SPACE_FILLS: dict[str, str] = {
    "blue": "#c1d4f3",
    "red": "#f3c4c4",
    "green": "#c1e2cd",
    "yellow": "#f6e7bc",
    "pink": "#f6d0e9",
}
UNKNOWN_TILE_FILL = "#8a919e"
UNKNOWN_SPACE_FILL = "#e3e6ec"
UNKNOWN_SPACE_EDGE = "#8a919e"

#: The colour-blind shape of each colour.
COLOUR_SHAPES: dict[str, str] = {
    "blue": "triangle",
    "red": "square",
    "green": "circle",
    "yellow": "diamond",
    "pink": "cross",
}

#: Shape ink: dark with a white rim, readable on every tile colour and on the light spaces.
SHAPE_FILL = "#1d2433"
SHAPE_RIM = "#ffffff"


def _num(value: float) -> str:
    """Format a coordinate without localization: 12.0 -> "12", 12.25 -> "12.3"."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _points(centre_x: float, centre_y: float, pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{_num(centre_x + x)},{_num(centre_y + y)}" for x, y in pts)


def shape_geometry(colour: str, cx: float, cy: float, size: float, rim: float) -> dict | None:
    """Return what ``shape.html`` needs to draw the colour-blind shape of `colour`.

    `size` is roughly the radius of the shape; the shapes are scaled so they look about as
    big as each other. Returns None for an unknown colour.
    """
    name = COLOUR_SHAPES.get(colour)
    if name is None:
        return None
    shape = {"name": name, "fill": SHAPE_FILL, "rim": SHAPE_RIM, "rim_width": _num(rim)}
    if name == "circle":
        shape.update(element="circle", cx=_num(cx), cy=_num(cy), r=_num(size * 0.92))
        return shape
    if name == "triangle":
        r = size * 1.18  # an equilateral triangle pointing up, centred between centroid and box
        pts = [(r * cos(radians(a)), r * sin(radians(a))) for a in (-90, 30, 150)]
        pts = [(x, y + r * 0.2) for x, y in pts]
    elif name == "square":
        h = size * 0.82
        pts = [(-h, -h), (h, -h), (h, h), (-h, h)]
    elif name == "diamond":
        h = size * 1.12
        pts = [(0, -h), (h, 0), (0, h), (-h, 0)]
    else:  # cross: an X (a plus turned 45 degrees)
        arm, half = size * 1.12, size * 0.3
        plus = [
            (half, -arm), (half, -half), (arm, -half), (arm, half), (half, half), (half, arm),
            (-half, arm), (-half, half), (-arm, half), (-arm, -half), (-half, -half), (-half, -arm),
        ]  # fmt: skip
        c, s = cos(radians(45)), sin(radians(45))
        pts = [(x * c - y * s, x * s + y * c) for x, y in plus]
    shape.update(element="polygon", points=_points(cx, cy, pts))
    return shape


def _mask(paths: object) -> int | None:
    """Return `paths` as an int mask 0-15, or None if it is not one."""
    if isinstance(paths, bool):
        return None
    if isinstance(paths, int):
        value = paths
    elif isinstance(paths, str) and paths.strip().isdigit():
        value = int(paths.strip())
    else:
        return None
    return value if 0 <= value <= 15 else None


def _name(value: object, known: tuple[str, ...]) -> str | None:
    """Return `value` as one of the `known` names (case and spaces ignored), or None."""
    if not isinstance(value, str):
        return None
    name = value.strip().lower()
    return name if name in known else None


OPPOSITE = {1: 4, 4: 1, 2: 8, 8: 2}  # N-S, E-W


def trace_path(mask: int) -> str:
    """Return the SVG path data of the white paths of a tile with these connections.

    Every connection is a segment from the centre (50, 50) to the middle of its side. The
    first two connections (in N, E, S, W order) are one line through the centre, so a straight
    has no seam and a corner gets a round bend; the others start at the centre, where the
    junction dot (cross) or the pad (end) covers their ends. A tee's line is its straight pair,
    its third side a stub into it: nothing of it shows past the path on its blank side.
    """
    sides = [side for side, _ in SIDE_NAMES if mask & side]
    if len(sides) == 3:
        straight = [side for side in sides if OPPOSITE[side] in sides]
        sides = straight + [side for side in sides if side not in straight]
    ends = [f"{SIDE_ENDS[side][0]} {SIDE_ENDS[side][1]}" for side in sides]
    if not ends:
        return ""
    if len(ends) == 1:
        return f"M50 50L{ends[0]}"
    return f"M{ends[0]}L50 50L{ends[1]}" + "".join(f"M50 50L{end}" for end in ends[2:])


def side_names(mask: int) -> list[str]:
    """Return the readable names of the sides in `mask`, in N, E, S, W order."""
    return [str(name) for side, name in SIDE_NAMES if mask & side]


def path_names(paths: object) -> str:
    """``{{ 7|path_names }}`` -> "north, east, south"; "" for no paths or a bad mask."""
    mask = _mask(paths)
    if mask is None:
        return ""
    return ", ".join(side_names(mask))


def colour_shape(colour: object) -> str:
    """``{{ "blue"|colour_shape }}`` -> "triangle" (the colour-blind shape); "" if unknown."""
    name = _name(colour, COLOUR_NAMES)
    return COLOUR_SHAPES[name] if name else ""


def _plain(label: object) -> str:
    """Return `label` as plain text, dropping any "safe" mark so the template escapes it."""
    if label is None:
        return ""
    return "".join(str(label))


# --- markers over a placed tile (games/markers.py) ----------------------------------------------

#: Where a side's marker sits: on the middle of that side, over the path's end, inside the tile
#: and clear of the red rim an illegal tile gets (game.css). The broken-circuit icon is drawn
#: with its wire running north-south, and turned for east and west.
MARK_PLACES: dict[int, str] = {
    N: "translate(50 20)",
    E: "translate(80 50) rotate(90)",
    S: "translate(50 80)",
    W: "translate(20 50) rotate(90)",
}
#: The warning triangle stands upright on every side.
MARK_UPRIGHT: dict[int, str] = {N: "translate(50 20)", E: "translate(80 50)",
                                S: "translate(50 80)", W: "translate(20 50)"}  # fmt: skip
#: A side's letter in the name of a marker placed on it in the sprite ("mark-open-e").
SIDE_LETTERS: dict[int, str] = {N: "n", E: "e", S: "s", W: "w"}


def mark_id(kind: str, side: int) -> str:
    """The sprite's marker of `kind` ("broken", "open") placed on `side`: "mark-broken-n"."""
    return f"mark-{kind}-{SIDE_LETTERS[side]}"


def _stripes(low: float = 4, high: float = 96, width: float = 7, period: float = 17) -> str:
    """Return the path data of diagonal stripes (running up to the right) filling the square
    from `low` to `high`, which lies inside the tile's rounded corners, so no clip path (and no
    id) is needed. Each stripe is the band c <= x + y <= c + width, cut to the square."""

    def cut(polygon, c, sign):
        """Keep the part of the convex `polygon` where sign * (x + y - c) >= 0."""

        def inside(point):
            return sign * (point[0] + point[1] - c) >= 0

        out = []
        for before, point in zip(polygon[-1:] + polygon[:-1], polygon, strict=True):
            if inside(point) != inside(before):  # the edge crosses the line: add the crossing
                (x1, y1), (x2, y2) = before, point
                t = (c - x1 - y1) / (x2 - x1 + y2 - y1)
                out.append((x1 + t * (x2 - x1), y1 + t * (y2 - y1)))
            if inside(point):
                out.append(point)
        return out

    square = [(low, low), (high, low), (high, high), (low, high)]
    data = []
    c = 2 * low + (period - width) / 2
    while c < 2 * high:
        band = cut(cut(square, c, 1), c + width, -1)
        if len(band) >= 3:
            data.append("M" + "L".join(f"{_num(x)} {_num(y)}" for x, y in band) + "Z")
        c += period
    return "".join(data)


STRIPES = _stripes()


def marks_context(marks: Marks | None, tile_colour: str, colour_blind: bool) -> dict:
    """Return what ``tile.html`` draws over a tile for its marks: stripes in the space's colour
    (and the space's shape in colour-blind mode), one icon per marked side (the sprite's, placed
    on that side), and their words, once (`words`), as the tooltip of the icons (`said_by`
    "icons") or, with none, of the stripes ("stripes")."""
    if marks is None:
        return {}
    context: dict = {"icons": []}
    for mark in marks.each():
        if mark.kind == COLOUR:
            space = _name(marks.space, COLOUR_NAMES)
            if space is None or space == tile_colour:
                continue
            context.update(
                stripes=True,
                space=space,
                space_fill=TILE_FILLS[space],
                space_tint=SPACE_FILLS[space],
                space_shape=colour_blind,  # the sprite's badge, cb-badge-<space>
            )
        else:
            context["icons"].append(mark_id(mark.kind, mark.side))  # BROKEN or OPEN
    if context["icons"] or context.get("space_shape"):
        context.update(said_by="icons", words=marks.words())
    elif context.get("stripes"):
        context.update(said_by="stripes", words=marks.words())
    return context


def tile_context(
    kind: object,
    colour: object,
    paths: object,
    colour_blind: bool = False,
    label: object = "",
    marks: Marks | None = None,
) -> dict:
    """Return the context of ``games/svg/tile.html`` (see `tile_svg`)."""
    kind_name = _name(kind, KIND_NAMES)
    colour_name = _name(colour, COLOUR_NAMES)
    mask = _mask(paths)
    if (
        kind_name is None
        or colour_name is None
        or mask is None
        or mask not in KIND_MASKS[kind_name]
    ):
        logger.warning(
            "tile_svg: unknown tile (kind=%s, colour=%s, paths=%s)",
            _short_repr.repr(kind),
            _short_repr.repr(colour),
            _short_repr.repr(paths),
        )
        return {
            "known": False,
            "classes": "tile tile--unknown",
            "label": gettext("unknown tile"),
            "fill": UNKNOWN_TILE_FILL,
        }
    names = side_names(mask)
    text = _plain(label)
    if not text:
        # Translators: a tile's drawing as a screen reader names it: its name and the sides
        # its paths run to ("red corner, paths north, east").
        text = ngettext("%(tile)s, path %(sides)s", "%(tile)s, paths %(sides)s", len(names)) % {
            "tile": gettext(TILE_NAMES[Colour(colour_name), Kind(kind_name)]),
            "sides": ", ".join(names),
        }
    return {
        "known": True,
        # Its kind is its paths' (the sprite's tile-<paths> says them): no class of its own.
        "classes": f"tile tile--{colour_name}",
        "kind": kind_name,
        "colour": colour_name,
        "paths": mask,
        "label": text,
        "shape": colour_blind,  # the sprite's, cb-tile-<colour>
        **marks_context(marks, colour_name, colour_blind),
    }


def sprite_context(colour_blind: bool = False) -> dict:
    """Return the context of ``games/svg/sprite.html``: the drawing of every tile's paths and of
    every empty space, once a page (a tile or space refers to its own: `tile.html`,
    `space.html`), and with `colour_blind` the shapes of each colour: in a tile's corner, in the
    middle of a space, and on the badge of a tile on a space of another colour."""
    kinds = {mask: kind for kind, kind_masks in KIND_MASKS.items() for mask in kind_masks}
    return {
        "paths": [
            {
                "mask": mask,
                "trace": trace_path(mask),
                "pad": kinds[mask] == "end",
                # The junction dot of a cross; a tee's would bulge out on its blank side.
                "node": BASE_PATHS[kinds[mask]].bit_count() == 4,
            }
            for mask in sorted(kinds)
        ],
        "spaces": [
            {"colour": colour, "fill": SPACE_FILLS[colour], "edge": TILE_FILLS[colour]}
            for colour in SPACE_FILLS
        ],
        "marks": [
            {"id": mark_id(kind, side), "kind": kind, "place": places[side]}
            for kind, places in ((BROKEN, MARK_PLACES), (OPEN, MARK_UPRIGHT))
            for side in SIDE_LETTERS
        ],
        "stripes": STRIPES,
        "shapes": [
            {
                "colour": colour,
                "tile": shape_geometry(colour, 20, 20, 12, 2.2),
                "space": shape_geometry(colour, 50, 50, 17, 2.5),
                "badge": shape_geometry(colour, 80, 80, 8, 1.8),
                "fill": TILE_FILLS[colour],
                "tint": SPACE_FILLS[colour],
            }
            for colour in COLOUR_NAMES
        ]
        if colour_blind
        else [],
    }


def space_context(colour: object, colour_blind: bool = False) -> dict:
    """Return the context of ``games/svg/space.html`` (see `space_svg`)."""
    colour_name = _name(colour, COLOUR_NAMES)
    if colour_name is None:
        logger.warning("space_svg: unknown space colour %s", _short_repr.repr(colour))
        return {
            "known": False,
            "classes": "space space--unknown",
            "label": gettext("unknown space"),
            "fill": UNKNOWN_SPACE_FILL,
            "edge": UNKNOWN_SPACE_EDGE,
            "shape": None,
        }
    return {
        "known": True,
        "classes": f"space space--{colour_name}",
        "colour": colour_name,
        # Translators: an empty space of a board as a screen reader names it: "empty red space".
        "label": gettext("empty %(colour)s space")
        % {"colour": gettext(COLOUR_WORDS[Colour(colour_name)])},
        "fill": SPACE_FILLS[colour_name],
        "edge": TILE_FILLS[colour_name],
        "shape": colour_blind,  # the sprite's, cb-space-<colour>
    }


def tile_sprite(colour_blind=False):
    """Draw what every tile of a page refers to: ``{% tile_sprite colour_blind=... %}``, once a
    page (base.html), with the colour-blind shapes when the page's tiles are drawn with them.

    A tile is its colour and a reference to its drawing (``<use>``), and each of its marks and
    its colour-blind shape another: a board's spaces, sent again on every change, carry a few
    dozen bytes for it instead of half a kilobyte (issue 21)."""
    return _sprite_html(bool(colour_blind))


@functools.lru_cache(maxsize=2)
def _sprite_html(colour_blind):
    return render_to_string("games/svg/sprite.html", sprite_context(colour_blind))


def tile_svg(kind, colour, paths, colour_blind=False, label="", marks=None, decorative=False):
    """Draw a tile: ``{% tile_svg kind colour paths colour_blind=False label="" marks=None
    decorative=False %}``.

    `paths` is the rotated 4-bit mask (N=1, E=2, S=4, W=8). `label` replaces the default
    aria-label ("blue tee, paths north, east, south"); it is plain text and always escaped.
    `marks` (games.markers.Marks) draws what is wrong with a placed tile over it, with their
    words as one tooltip over the marks; the label should say them too (the tooltip is not read
    by screen readers: the drawing is an image). `decorative`: the tile is inside a control whose
    own label names it (a button): the drawing has no role, label or tooltip of its own (the
    control's children are presentational, so it is not read a second time), and the control
    carries the marks' words (its ``title``, templates/games/partials/space.html), a tooltip
    over the whole tile.
    """
    if marks is not None and not isinstance(marks, Marks):
        logger.warning("tile_svg: marks that are not Marks: %s", _short_repr.repr(marks))
        marks = None
    return _tile_html(_hashable(kind), _hashable(colour), _hashable(paths), bool(colour_blind),
                      _plain(label), marks, bool(decorative),
                      translation.get_language())  # fmt: skip


def space_svg(colour, colour_blind=False, decorative=False):
    """Draw an empty board space: ``{% space_svg colour colour_blind=False decorative=False %}``
    (`decorative`: inside a control whose label names it, as `tile_svg`'s)."""
    return _space_html(
        _hashable(colour), bool(colour_blind), bool(decorative), translation.get_language()
    )


# A page draws the same few dozen tiles and spaces over and over (every board, every push), and
# each drawing depends only on its arguments and the language of its words (its label, its marks'
# tooltip): draw each once per process and language.
@memo(max_bytes=6 * MIB)
def _tile_html(kind, colour, paths, colour_blind, label, marks, decorative, language):
    context = tile_context(kind, colour, paths, colour_blind, label, marks)
    if decorative:  # its control says the marks' words
        context.pop("said_by", None)
    return render_to_string("games/svg/tile.html", {**context, "decorative": decorative})


@memo(max_bytes=1 * MIB)
def _space_html(colour, colour_blind, decorative, language):
    context = space_context(colour, colour_blind)
    return render_to_string("games/svg/space.html", {**context, "decorative": decorative})


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return repr(value)  # drawn as an unknown tile, like any other nonsense
    return value
